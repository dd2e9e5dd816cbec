package io.streamhouse.connect.commit;

import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.CompactionResult;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.TableFormat;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's side of compaction: it hands out the jobs each table commit calls for, to the
 * tasks that answered the round ({@link CompactionAssignments}: never two jobs out for one key),
 * once per coordinator the jobs the configured tables need as they are, and again the jobs without
 * a result after their timeout; it reassembles the results tasks send ({@link
 * ControlEvent.CompactionResultChunk}), taken only while their job is out, and commits them as they
 * arrive ({@link TableFormat#commitCompactions}), which frees their keys for the next jobs. The
 * {@link Coordinator} calls it on its own thread, so a result is never committed at the same time
 * as a round's commit of its table.
 */
final class CompactionCoordinator {
  private static final Logger LOG = LoggerFactory.getLogger(CompactionCoordinator.class);

  private final Map<String, TableFormat> formats;
  private final Clock clock;
  private final CompactionAssignments assignments;

  /** Tables the consumed topics go to by their routes alone (not those a record field names). */
  private final Supplier<? extends Collection<TableId>> knownTables;

  private final ChunkAssembler<ControlEvent.CompactionResultChunk, CompactionResult> chunks =
      ChunkAssembler.compactionResults();
  private final Map<TableId, List<CompactionResult>> results = new TreeMap<>();
  private boolean pendingChecked;

  /**
   * {@code timeoutMs}: how long a job may be out without a result before it goes out again. {@code
   * knownTables}: the tables checked for pending compactions in the first round.
   */
  CompactionCoordinator(
      String connector,
      Map<String, TableFormat> formats,
      Supplier<? extends Collection<TableId>> knownTables,
      long timeoutMs,
      Clock clock) {
    this.formats = formats;
    this.knownTables = knownTables;
    this.clock = clock;
    this.assignments = new CompactionAssignments(connector, timeoutMs);
  }

  /** A chunk of a job's result, sent as soon as its task ran the job; kept while the job is out. */
  void onResultChunk(ControlEvent.CompactionResultChunk chunk) {
    if (assignments.isResultOfJobOut(chunk)) {
      chunks
          .add(chunk)
          .ifPresent(
              result -> results.computeIfAbsent(chunk.table(), t -> new ArrayList<>()).add(result));
    }
  }

  /**
   * Commits the compaction results that arrived under {@code commitId} (the coordinator's latest)
   * and frees their buckets for the next jobs. Their tasks do not wait for the decision: a result
   * that is not committed is dropped, and the bucket gets a new job with its next write.
   */
  void commitResults(long commitId) {
    if (results.isEmpty()) {
      return;
    }
    results.forEach(
        (table, list) -> {
          long start = System.nanoTime();
          try {
            Map<String, BatchPlan.Decision> decisions =
                formats.get(table.catalog()).commitCompactions(table, commitId, list);
            assignments.decided(decisions.keySet());
            LOG.debug(
                "Compaction results of {} decided in {} ms: {}",
                table,
                (System.nanoTime() - start) / 1_000_000,
                decisions);
          } catch (RuntimeException e) {
            assignments.decided(list.stream().map(CompactionResult::jobId).toList());
            LOG.warn(
                "Could not commit {} compaction results to {}; their buckets get new jobs with "
                    + "their next writes: {}",
                list.size(),
                table,
                e.toString());
          }
        });
    results.clear();
    chunks.retain(assignments::isOut);
  }

  /** The jobs the commit of {@code table} in round {@code commitId} calls for, to {@code tasks}. */
  List<ControlEvent.CompactRequest> afterTableCommit(
      long commitId, TableId table, CommitOutcome outcome, Collection<Integer> tasks) {
    return assignments.handOut(commitId, table, outcome.compactions(), tasks, clock.millis());
  }

  /**
   * At the end of round {@code commitId}, to {@code tasks} (those that answered it): the jobs out
   * for too long go out again, the jobs deferred while their keys were out go out, and in the first
   * round a task answered, the jobs the configured tables need as they are.
   */
  List<ControlEvent.CompactRequest> afterRound(long commitId, Collection<Integer> tasks) {
    List<ControlEvent.CompactRequest> requests = new ArrayList<>();
    requests.addAll(assignments.reissueExpired(commitId, tasks, clock.millis()));
    requests.addAll(assignments.handOutDeferred(commitId, tasks, clock.millis()));
    if (!pendingChecked && !tasks.isEmpty()) {
      pendingChecked = true;
      requests.addAll(pendingCompactions(commitId, tasks));
    }
    chunks.retain(assignments::isOut);
    return requests;
  }

  /**
   * Once per coordinator, in its first round that a task answered: the compactions the configured
   * tables need as they are (a predecessor may have crashed with jobs out, and a table that gets no
   * more writes would wait for them forever).
   */
  private List<ControlEvent.CompactRequest> pendingCompactions(
      long commitId, Collection<Integer> tasks) {
    List<ControlEvent.CompactRequest> requests = new ArrayList<>();
    Collection<TableId> tables;
    try {
      tables = knownTables.get();
    } catch (RuntimeException e) {
      LOG.warn("Could not list the tables of the consumed topics: {}", e.toString());
      pendingChecked = false; // the next round tries again
      return List.of();
    }
    for (TableId table : tables) {
      TableFormat format = formats.get(table.catalog());
      try {
        List<CompactionJob> jobs = format == null ? List.of() : format.pendingCompactions(table);
        if (!jobs.isEmpty()) {
          LOG.info("{} buckets of {} wait for a compaction; handing them out", jobs.size(), table);
          requests.addAll(assignments.handOut(commitId, table, jobs, tasks, clock.millis()));
        }
      } catch (RuntimeException e) {
        LOG.warn(
            "Could not check {} for buckets waiting for a compaction: {}", table, e.toString());
      }
    }
    return requests;
  }
}
