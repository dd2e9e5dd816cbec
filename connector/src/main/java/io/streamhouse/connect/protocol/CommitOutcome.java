package io.streamhouse.connect.protocol;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What a table commit did: per batch id the decision, and the watermarks now in the table. {@code
 * snapshotId} is empty when no snapshot was needed. {@code refused} are the rejected batches whose
 * files failed the checks before the commit: nothing may touch those files, which may not be the
 * connector's. {@code compactions}: maintenance the commit calls for, which the coordinator hands
 * out to the tasks.
 */
public record CommitOutcome(
    Map<String, BatchPlan.Decision> decisions,
    Watermarks watermarks,
    OptionalLong snapshotId,
    long records,
    int files,
    Set<String> refused,
    List<CompactionJob> compactions) {
  public CommitOutcome {
    refused = Set.copyOf(refused);
    compactions = List.copyOf(compactions);
  }

  public CommitOutcome(
      Map<String, BatchPlan.Decision> decisions,
      Watermarks watermarks,
      OptionalLong snapshotId,
      long records,
      int files,
      Set<String> refused) {
    this(decisions, watermarks, snapshotId, records, files, refused, List.of());
  }

  public CommitOutcome(
      Map<String, BatchPlan.Decision> decisions,
      Watermarks watermarks,
      OptionalLong snapshotId,
      long records,
      int files) {
    this(decisions, watermarks, snapshotId, records, files, Set.of());
  }

  /** True when every one of {@code batches} is applied or already present. */
  public boolean tookAll(List<OfferedBatch> batches) {
    return batches.stream()
        .map(b -> decisions.get(b.batchId()))
        .allMatch(d -> d == BatchPlan.Decision.APPLY || d == BatchPlan.Decision.ALREADY_PRESENT);
  }

  /**
   * The files of the batches among {@code batches} that this commit rejected and the connector
   * wrote: to delete. Files of refused batches are left alone.
   */
  public List<PreparedFiles> rejectedFiles(List<OfferedBatch> batches) {
    return batches.stream()
        .filter(b -> decisions.get(b.batchId()) == BatchPlan.Decision.REJECT)
        .filter(b -> !refused.contains(b.batchId()))
        .map(OfferedBatch::files)
        .toList();
  }
}
