package io.streamhouse.connect.commit.coordinator;

import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.AtomicRounds;
import io.streamhouse.connect.table.CommitLoop;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One atomic catalog's share of a round: its tables staged in parallel on the committer threads,
 * then published in one catalog transaction; when a table changed under the round (another writer,
 * a compaction, a zombie coordinator), the whole round is staged again from what the tables hold,
 * at most {@link CommitLoop#MAX_PLAN_ATTEMPTS} times. The dead-letter table, when it is one of
 * them, is staged first, and the others join only when it takes every batch.
 */
final class AtomicRoundCommit {
  // The coordinator's logger: operators and log checks read these lines as its own.
  private static final Logger LOG = LoggerFactory.getLogger(Coordinator.class);

  private final String connector;
  private final ExecutorService committers;
  private final FaultInjection faults;
  private final TableCommit reporter;
  private volatile RoundGuard guard = RoundGuard.ALWAYS;

  AtomicRoundCommit(
      String connector, ExecutorService committers, FaultInjection faults, TableCommit reporter) {
    this.connector = connector;
    this.committers = committers;
    this.faults = faults;
    this.reporter = reporter;
  }

  /** Asks {@code guard} before each publish ({@link TransactionRounds}). */
  void guard(RoundGuard guard) {
    this.guard = guard;
  }

  /**
   * Commits {@code tables} (all of catalog {@code catalog}) together, unless the guard makes the
   * round wait: then nothing is published and each outcome holds only the decisions no later round
   * changes (rejected, already present), whose rejected files are deleted. The outcome of each
   * table that was part of the transaction; none when the dead-letter table {@code first} did not
   * take all.
   *
   * @throws RuntimeException when no table changed: every table's batches stay offered
   */
  Map<TableId, CommitOutcome> commit(
      String catalog,
      AtomicRounds atomic,
      long commitId,
      Map<TableId, List<OfferedBatch>> tables,
      boolean full,
      TableId first) {
    long start = System.nanoTime();
    int[] attempts = {0};
    boolean[] waits = {false};
    Map<TableId, CommitOutcome> outcomes =
        CommitLoop.retry(
            connector,
            "catalog " + catalog + " (" + tables.size() + " tables of commit " + commitId + ")",
            "no table changed; every table's batches stay offered for the next round",
            attempt -> {
              attempts[0] = attempt;
              AtomicRounds.Round round = atomic.begin(commitId);
              try {
                Map<TableId, CommitOutcome> staged = stage(round, tables, full, first);
                if (!guard.publishes(commitId, tables, staged)) {
                  waits[0] = true;
                  round.abandon();
                  return staged;
                }
                if (round.changesAnyTable()) {
                  round.publish();
                }
                return staged;
              } catch (CommitLoop.ConcurrentCommitException | RuntimeException e) {
                round.abandon();
                throw e;
              }
            });
    if (waits[0]) {
      return finalDecisions(tables, outcomes);
    }
    faults.at(FaultInjection.Point.AFTER_TABLE_COMMIT);
    long durationMs = (System.nanoTime() - start) / 1_000_000;
    LOG.info(
        "Commit {} of catalog {}: {} of {} tables changed in one transaction, {} ms, {} attempts",
        commitId,
        catalog,
        outcomes.values().stream().filter(o -> o.snapshotId().isPresent()).count(),
        tables.size(),
        durationMs,
        attempts[0]);
    outcomes.forEach(
        (table, outcome) ->
            reporter.report(table, commitId, tables.get(table), outcome, durationMs));
    return outcomes;
  }

  private Map<TableId, CommitOutcome> finalDecisions(
      Map<TableId, List<OfferedBatch>> tables, Map<TableId, CommitOutcome> staged) {
    Map<TableId, CommitOutcome> decided = new LinkedHashMap<>();
    staged.forEach(
        (table, outcome) -> {
          Map<String, BatchPlan.Decision> last = new HashMap<>(outcome.decisions());
          last.values().removeIf(d -> d == BatchPlan.Decision.APPLY);
          CommitOutcome kept =
              new CommitOutcome(
                  last, outcome.watermarks(), OptionalLong.empty(), 0, 0, outcome.refused());
          reporter.discardRejected(table, tables.get(table), kept);
          decided.put(table, kept);
        });
    return decided;
  }

  private Map<TableId, CommitOutcome> stage(
      AtomicRounds.Round round,
      Map<TableId, List<OfferedBatch>> tables,
      boolean full,
      TableId first) {
    Map<TableId, CommitOutcome> staged = new LinkedHashMap<>();
    if (first != null && tables.containsKey(first)) {
      CommitOutcome outcome = round.stage(first, tables.get(first), full);
      staged.put(first, outcome);
      if (!outcome.tookAll(tables.get(first))) {
        return staged; // the other tables' watermarks may pass its records only once it holds them
      }
    }
    Map<TableId, Future<CommitOutcome>> running = new LinkedHashMap<>();
    tables.forEach(
        (table, batches) -> {
          if (!staged.containsKey(table)) {
            running.put(table, committers.submit(() -> round.stage(table, batches, full)));
          }
        });
    RuntimeException failed = null;
    for (Map.Entry<TableId, Future<CommitOutcome>> e : running.entrySet()) {
      try {
        staged.put(e.getKey(), e.getValue().get());
      } catch (ExecutionException stagingFailed) {
        if (failed == null) {
          failed =
              new IllegalStateException(
                  "Connector " + connector + ": staging " + e.getKey() + " failed",
                  stagingFailed.getCause());
        }
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while staging " + e.getKey(), interrupted);
      }
    }
    if (failed != null) {
      throw failed; // after every staging ended, so that none adds to an abandoned round
    }
    return staged;
  }
}
