package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.task.InFlightBatches.Preparing;
import java.util.List;

/**
 * Batches taken out of a task's writers in generation {@code generation} ({@link TaskState}), to be
 * closed; {@code records}: how many records were written into the writers since the cut before.
 */
record DetachedBatches(List<Preparing> batches, long generation, long records) {
  static final DetachedBatches NONE = new DetachedBatches(List.of(), -1, 0);
}
