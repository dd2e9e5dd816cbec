package io.streamhouse.connect.table;

import io.streamhouse.connect.commit.BatchPlan;
import io.streamhouse.connect.commit.Watermarks;
import java.util.Map;

/**
 * What a table commit did: per batch id the decision, and the watermarks now in the table.
 * {@code snapshotId} is empty when no snapshot was needed.
 */
public record CommitOutcome(Map<String, BatchPlan.Decision> decisions, Watermarks watermarks,
    java.util.OptionalLong snapshotId, long records, int files) {}
