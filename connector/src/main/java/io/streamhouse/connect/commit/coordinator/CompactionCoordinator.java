package io.streamhouse.connect.commit.coordinator;

import io.streamhouse.connect.commit.wire.ChunkAssembler;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.CompactionResult;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.TableFormat;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's side of compaction: it hands out the jobs each table commit calls for, to the
 * tasks that answered the round ({@link CompactionAssignments}: never two jobs out for one key), in
 * its first round the jobs the configured tables need as they are, again the jobs without a result
 * after their timeout, and the jobs a table that went quiet still needs ({@link #quietAfterMs}): on
 * tables with deletion vectors the newest rows stay invisible until their bucket is compacted, and
 * a table that gets no more writes gets no more jobs from its commits. It reassembles the results
 * tasks send ({@link ControlEvent.CompactionResultChunk}), taken only while their job is out, and
 * commits them as they arrive ({@link TableFormat#commitCompactions}), which frees their keys for
 * the next jobs. The {@link Coordinator} calls it on its own thread, so a result is never committed
 * at the same time as a round's commit of its table.
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

  /**
   * How long a table goes without a commit or a job of this coordinator before it is looked at for
   * compactions nobody handed out: a predecessor frozen mid-round that committed after this one
   * started, a result this one could not commit. Looking costs one read of the latest snapshot's
   * id, and a scan of the table's files only when that changed since the last look.
   */
  private final long quietAfterMs;

  private final long timeoutMs;

  /** Tables this coordinator committed to or handed jobs for, and the configured ones. */
  private final Set<TableId> tracked = new TreeSet<>();

  /** When each tracked table is looked at next; a table without an entry is due now. */
  private final Map<TableId, Long> lookAt = new HashMap<>();

  /** The latest snapshot of each table whose look found nothing to compact. */
  private final Map<TableId, Long> settled = new HashMap<>();

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
    this.timeoutMs = timeoutMs;
    this.quietAfterMs = Math.max(6 * timeoutMs, 60_000);
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
            if (decisions.containsValue(BatchPlan.Decision.REJECT)) {
              lookAgainSoon(table);
            }
            LOG.debug(
                "Compaction results of {} decided in {} ms: {}",
                table,
                (System.nanoTime() - start) / 1_000_000,
                decisions);
          } catch (RuntimeException e) {
            assignments.decided(list.stream().map(CompactionResult::jobId).toList());
            lookAgainSoon(table);
            LOG.warn(
                "Could not commit {} compaction results to {}; their buckets get new jobs with "
                    + "their next writes, or in the next round: {}",
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
    long now = clock.millis();
    tracked.add(table);
    lookAt.put(table, now + quietAfterMs); // the commit's own jobs cover it
    settled.remove(table);
    return assignments.handOut(commitId, table, outcome.compactions(), tasks, now);
  }

  /**
   * At the end of round {@code commitId}, to {@code tasks} (those that answered it): the jobs out
   * for too long go out again, the jobs deferred while their keys were out go out, and the jobs of
   * the tables due for a look (all of them in the first round a task answered).
   */
  List<ControlEvent.CompactRequest> afterRound(long commitId, Collection<Integer> tasks) {
    List<ControlEvent.CompactRequest> requests = new ArrayList<>();
    requests.addAll(assignments.reissueExpired(commitId, tasks, clock.millis()));
    requests.addAll(assignments.handOutDeferred(commitId, tasks, clock.millis()));
    if (!tasks.isEmpty()) {
      requests.addAll(lookAtQuietTables(commitId, tasks));
    }
    chunks.retain(assignments::isOut);
    return requests;
  }

  /**
   * After a result of {@code table} was not committed: a look at it once a job's timeout passed (a
   * conflict with a second compaction of the bucket settles by then).
   */
  private void lookAgainSoon(TableId table) {
    tracked.add(table);
    lookAt.put(table, clock.millis() + timeoutMs);
    settled.remove(table);
  }

  /**
   * The compactions the due tables need as they are: a table is due when it had no commit or job of
   * this coordinator for {@link #quietAfterMs} (or was never looked at: a predecessor may have
   * crashed with jobs out), and is looked at again only if its latest snapshot changed.
   */
  private List<ControlEvent.CompactRequest> lookAtQuietTables(
      long commitId, Collection<Integer> tasks) {
    try {
      tracked.addAll(knownTables.get());
    } catch (RuntimeException e) {
      LOG.warn("Could not list the tables of the consumed topics: {}", e.toString());
    }
    long now = clock.millis();
    Set<TableId> busy = assignments.busyTables();
    List<ControlEvent.CompactRequest> requests = new ArrayList<>();
    for (TableId table : tracked) {
      TableFormat format = formats.get(table.catalog());
      if (format == null || busy.contains(table) || now < lookAt.getOrDefault(table, 0L)) {
        continue;
      }
      lookAt.put(table, now + quietAfterMs);
      try {
        OptionalLong latest = format.latestSnapshotId(table);
        if (latest.isEmpty() || Objects.equals(settled.get(table), latest.getAsLong())) {
          continue;
        }
        List<CompactionJob> jobs = format.pendingCompactions(table);
        if (jobs.isEmpty()) {
          settled.put(table, latest.getAsLong());
        } else {
          LOG.info("{} buckets of {} wait for a compaction; handing them out", jobs.size(), table);
          requests.addAll(assignments.handOut(commitId, table, jobs, tasks, now));
        }
      } catch (RuntimeException e) {
        LOG.warn(
            "Could not check {} for buckets waiting for a compaction: {}", table, e.toString());
      }
    }
    return requests;
  }
}
