package io.streamhouse.connect.commit.coordinator;

import io.streamhouse.connect.commit.ConnectorThreads;
import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.AtomicRounds;
import io.streamhouse.connect.table.TableFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the tables of one {@link Coordinator} round, up to {@code commitParallelism} at a time on
 * its committer threads, the dead-letter table first: the coordinator's rounds decide when to
 * commit, this decides in what order and gathers what the tables decided, so that the tasks hear of
 * every table that committed and of no table that failed. The tables of a catalog that commits
 * rounds atomically go in one transaction per catalog ({@link AtomicRoundCommit}).
 */
final class RoundCommitter {
  // The coordinator's logger: operators and log checks read these lines as its own.
  private static final Logger LOG = LoggerFactory.getLogger(Coordinator.class);

  private final String connector;
  private final FaultInjection faults;
  private final CommitObserver observer;
  private final CompactionCoordinator compactions;
  private final Map<String, TableFormat> formats;
  private final TableCommit tableCommit;
  private final ExecutorService committers;
  private final AtomicRoundCommit atomicCommit;

  private volatile TableId deadLetterTable;

  RoundCommitter(
      String connector,
      Map<String, TableFormat> formats,
      int commitParallelism,
      FaultInjection faults,
      CommitObserver observer,
      CompactionCoordinator compactions) {
    this.connector = connector;
    this.faults = faults;
    this.observer = observer;
    this.compactions = compactions;
    this.formats = formats;
    this.tableCommit = new TableCommit(formats, faults, observer);
    this.committers =
        Executors.newFixedThreadPool(
            commitParallelism,
            ConnectorThreads.factory(
                "streamhouse-committer-" + connector.replace("%", "%%") + "-%d"));
    this.atomicCommit = new AtomicRoundCommit(connector, committers, faults, tableCommit);
  }

  /** See {@link AtomicRoundCommit#guard}. */
  void guard(RoundGuard guard) {
    atomicCommit.guard(guard);
  }

  /** See {@link Coordinator#commitFirst}. */
  void commitFirst(TableId table) {
    this.deadLetterTable = table;
  }

  /**
   * Commits the tables of {@code toCommit}, the dead-letter table first and the others only once it
   * took every batch; {@code toCommit} loses the dead-letter table and the tables of atomic
   * catalogs, and the others too when they wait. The events telling the tasks what each table
   * decided, and the compaction requests the commits call for.
   */
  List<ControlEvent> commit(
      long commitId,
      Map<TableId, List<OfferedBatch>> toCommit,
      boolean full,
      Set<Integer> reporters) {
    if (!toCommit.isEmpty()) {
      faults.at(FaultInjection.Point.BEFORE_TABLE_COMMIT);
    }
    List<ControlEvent> results = new ArrayList<>();
    TableId first = deadLetterTable;
    if (first != null && toCommit.containsKey(first)) {
      List<OfferedBatch> batches = toCommit.get(first);
      Optional<AtomicRounds> atomic = formats.get(first.catalog()).atomicRounds();
      CommitOutcome outcome;
      if (atomic.isPresent()) {
        outcome =
            commitAtomically(
                    first.catalog(),
                    atomic.get(),
                    commitId,
                    ofCatalog(first.catalog(), toCommit),
                    full,
                    first,
                    reporters,
                    results)
                .get(first);
      } else {
        outcome =
            collect(
                    Map.of(
                        first,
                        committers.submit(
                            () -> tableCommit.commit(first, commitId, batches, full))),
                    commitId,
                    toCommit,
                    results,
                    reporters)
                .get(first);
        toCommit.remove(first);
      }
      if (outcome == null || !outcome.tookAll(batches)) {
        LOG.warn(
            "Commit {}: the dead-letter table {} did not take every batch; the other {} tables"
                + " wait for the next round",
            commitId,
            first,
            toCommit.size());
        toCommit.clear();
      }
    }
    Map<TableId, Future<CommitOutcome>> running = new LinkedHashMap<>();
    Map<String, AtomicRounds> atomicCatalogs = new LinkedHashMap<>();
    toCommit.forEach(
        (table, batches) -> {
          Optional<AtomicRounds> atomic = formats.get(table.catalog()).atomicRounds();
          if (atomic.isPresent()) {
            atomicCatalogs.put(table.catalog(), atomic.get());
          } else {
            running.put(
                table, committers.submit(() -> tableCommit.commit(table, commitId, batches, full)));
          }
        });
    atomicCatalogs.forEach(
        (catalog, atomic) ->
            commitAtomically(
                catalog,
                atomic,
                commitId,
                ofCatalog(catalog, toCommit),
                full,
                null,
                reporters,
                results));
    collect(running, commitId, toCommit, results, reporters);
    return results;
  }

  /** Removes the tables of {@code catalog} from {@code toCommit} and returns them. */
  private static Map<TableId, List<OfferedBatch>> ofCatalog(
      String catalog, Map<TableId, List<OfferedBatch>> toCommit) {
    Map<TableId, List<OfferedBatch>> tables = new LinkedHashMap<>();
    toCommit.forEach(
        (table, batches) -> {
          if (table.catalog().equals(catalog)) {
            tables.put(table, batches);
          }
        });
    toCommit.keySet().removeAll(tables.keySet());
    return tables;
  }

  /**
   * Commits the tables of an atomic catalog in one transaction; their decisions go into {@code
   * results}. The outcomes, none when the transaction failed (logged: no table changed).
   */
  private Map<TableId, CommitOutcome> commitAtomically(
      String catalog,
      AtomicRounds atomic,
      long commitId,
      Map<TableId, List<OfferedBatch>> tables,
      boolean full,
      TableId first,
      Set<Integer> reporters,
      List<ControlEvent> results) {
    try {
      Map<TableId, CommitOutcome> outcomes =
          atomicCommit.commit(catalog, atomic, commitId, tables, full, first);
      outcomes.forEach(
          (table, outcome) -> {
            if (!outcome.decisions().isEmpty()) { // a round that waits decides only some
              results.add(
                  new ControlEvent.TableCommitted(connector, commitId, table, outcome.decisions()));
            }
            results.addAll(compactions.afterTableCommit(commitId, table, outcome, reporters));
          });
      return outcomes;
    } catch (RuntimeException failed) {
      tables.keySet().forEach(observer::failed);
      LOG.error(
          "Commit {} of the {} tables of catalog {} failed and changed none of them; their tasks"
              + " offer their batches again in the next round",
          commitId,
          tables.size(),
          catalog,
          failed);
      return Map.of();
    }
  }

  /**
   * Waits for the commits {@code running}; each outcome's decisions go into {@code results}, each
   * failure is logged. The outcomes of the commits that did not fail.
   */
  private Map<TableId, CommitOutcome> collect(
      Map<TableId, Future<CommitOutcome>> running,
      long commitId,
      Map<TableId, List<OfferedBatch>> toCommit,
      List<ControlEvent> results,
      Set<Integer> reporters) {
    Map<TableId, CommitOutcome> outcomes = new LinkedHashMap<>();
    for (Map.Entry<TableId, Future<CommitOutcome>> e : running.entrySet()) {
      TableId table = e.getKey();
      try {
        CommitOutcome outcome = e.getValue().get();
        outcomes.put(table, outcome);
        results.add(
            new ControlEvent.TableCommitted(connector, commitId, table, outcome.decisions()));
        results.addAll(compactions.afterTableCommit(commitId, table, outcome, reporters));
      } catch (ExecutionException failed) {
        observer.failed(table);
        LOG.error(
            "Commit {} of {} failed; its tasks offer its {} batches again in the next round",
            commitId,
            table,
            toCommit.get(table).size(),
            failed.getCause());
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while committing " + table, interrupted);
      }
    }
    return outcomes;
  }

  /** Stops the committer threads, interrupting the commits still running. */
  void shutdownNow() {
    committers.shutdownNow();
  }
}
