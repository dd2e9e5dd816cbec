package io.streamhouse.connect.commit.coordinator;

import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.TableFormat;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One table's commit of a round, as the {@link Coordinator} runs it on a committer thread: the
 * format's commit, the observer told, files of rejected batches deleted. A table committed with
 * others in one transaction ({@link AtomicRoundCommit}) is reported here too.
 */
final class TableCommit {
  // The coordinator's logger: operators and log checks read these lines as its own.
  private static final Logger LOG = LoggerFactory.getLogger(Coordinator.class);

  private final Map<String, TableFormat> formats;
  private final FaultInjection faults;
  private final CommitObserver observer;

  TableCommit(Map<String, TableFormat> formats, FaultInjection faults, CommitObserver observer) {
    this.formats = formats;
    this.faults = faults;
    this.observer = observer;
  }

  CommitOutcome commit(TableId table, long commitId, List<OfferedBatch> batches, boolean full) {
    long start = System.nanoTime();
    CommitOutcome outcome = formats.get(table.catalog()).commit(table, commitId, batches, full);
    faults.at(FaultInjection.Point.AFTER_TABLE_COMMIT);
    report(table, commitId, batches, outcome, (System.nanoTime() - start) / 1_000_000);
    return outcome;
  }

  /** Logs a table's commit, tells the observer, and deletes the files of rejected batches. */
  void report(
      TableId table,
      long commitId,
      List<OfferedBatch> batches,
      CommitOutcome outcome,
      long durationMs) {
    LOG.info(
        "Commit {} of {}: {} batches, {} records in {} files, {} ms, watermarks {}",
        commitId,
        table,
        batches.size(),
        outcome.records(),
        outcome.files(),
        durationMs,
        outcome.watermarks());
    int rejected = discardRejected(table, batches, outcome);
    long bytes =
        batches.stream()
            .filter(b -> outcome.decisions().get(b.batchId()) == BatchPlan.Decision.APPLY)
            .mapToLong(b -> b.files().bytes())
            .sum();
    observer.committed(table, outcome, bytes, durationMs, rejected);
  }

  /** Deletes the files of the batches {@code outcome} rejected; how many batches they were. */
  int discardRejected(TableId table, List<OfferedBatch> batches, CommitOutcome outcome) {
    List<PreparedFiles> rejected = outcome.rejectedFiles(batches);
    if (!rejected.isEmpty()) {
      formats.get(table.catalog()).discard(table, rejected);
    }
    return rejected.size();
  }
}
