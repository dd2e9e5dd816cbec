package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.TableFormat;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hand-over's fallback when no coordinator answers (task 0 may move in the same rebalance): a
 * task commits its own pending batches to the tables whose format tolerates a second committer. The
 * contiguity check is atomic with the snapshot there, so a batch the coordinator commits too is
 * acknowledged as already present, never added twice. Files of batches the commit rejected are
 * deleted, as the coordinator does.
 */
final class OwnBatchCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(OwnBatchCommitter.class);

  private final String connector;
  private final int taskId;
  private final Map<String, TableFormat> formats;
  private volatile TableId commitFirst;

  OwnBatchCommitter(String connector, int taskId, Map<String, TableFormat> formats) {
    this.connector = connector;
    this.taskId = taskId;
    this.formats = formats;
  }

  /** The dead-letter table: committed first, the others only if it took every batch. */
  void commitFirst(TableId table) {
    this.commitFirst = table;
  }

  /** True when the format of a table of {@code pending} takes a second committer. */
  boolean canCommitAny(Collection<InFlightBatches.Pending> pending) {
    return pending.stream()
        .anyMatch(p -> formats.get(p.table().catalog()).toleratesConcurrentCommitters());
  }

  /** Commits {@code pending} as commit {@code commitId}; the decisions of the tables it could. */
  Map<String, BatchPlan.Decision> commit(
      Collection<InFlightBatches.Pending> pending, long commitId) {
    Map<TableId, List<OfferedBatch>> byTable = new LinkedHashMap<>();
    TableId first = commitFirst;
    if (first != null && pending.stream().anyMatch(p -> p.table().equals(first))) {
      byTable.put(first, new ArrayList<>()); // its batches first
    }
    pending.forEach(p -> byTable.computeIfAbsent(p.table(), t -> new ArrayList<>()).add(p.batch()));
    Map<String, BatchPlan.Decision> decisions = new LinkedHashMap<>();
    boolean[] stop = {false};
    byTable.forEach(
        (table, batches) -> {
          TableFormat format = formats.get(table.catalog());
          if (stop[0] || !format.toleratesConcurrentCommitters()) {
            return;
          }
          if (table.equals(first)) {
            // the other tables' watermarks may pass its records only once it holds them
            stop[0] = true;
          }
          try {
            CommitOutcome outcome = format.commit(table, commitId, batches, false);
            decisions.putAll(outcome.decisions());
            if (table.equals(first)) {
              stop[0] = !outcome.tookAll(batches);
            }
            List<PreparedFiles> rejected = outcome.rejectedFiles(batches);
            if (!rejected.isEmpty()) {
              format.discard(table, rejected);
            }
            LOG.info(
                "No coordinator answered; committed its own {} batches to {} (commit {}): {}",
                batches.size(),
                table,
                commitId,
                outcome.decisions());
          } catch (RuntimeException e) {
            LOG.warn(
                "Could not commit its own batches to {} while handing over: {}",
                table,
                e.toString());
          }
        });
    return decisions;
  }
}
