package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.task.InFlightBatches.Pending;
import io.streamhouse.connect.commit.task.InFlightBatches.Preparing;
import io.streamhouse.connect.protocol.PreparedFiles;
import java.util.List;
import java.util.Map;

/**
 * Batches whose files closed ({@link TaskState#offer}), offered unless a reset voided them or a
 * file failed to close ({@code failure}).
 */
record OfferedBatches(
    List<Pending> batches, Map<Preparing, PreparedFiles> files, RuntimeException failure) {}
