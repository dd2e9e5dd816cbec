package io.streamhouse.connect.commit.coordinator;

import io.streamhouse.connect.commit.ConnectorThreads;
import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.config.MaintenanceSettings;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.MaintenanceReport;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.MaintenanceCheckpoints;
import io.streamhouse.connect.table.TableFormat;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's table maintenance, on a thread of its own so that it never delays a commit:
 * every table the coordinator commits to gets a pass right after the first commit, then every
 * {@code maintenance.interval.ms}. A pass runs the tables that are due, stalest first, and starts
 * none after the time budget; a failure is logged and counted, and the table is tried again at its
 * next interval. Hears of commits as a {@link CommitObserver}.
 *
 * <p>A table whose rows deleted by position call for a compaction ({@link TableFormat#deletesDue})
 * is due right after the commit that says so: readers of a primary-key table pay for every deleted
 * row, and every file, until a compaction drops them. Such a pass waits after the table's last pass
 * twice that pass's duration, at most {@link MaintenanceSettings#deleteCompactionGapMs()}, and
 * starts then, not at the next poll: a table whose compaction takes 0.5 s is compacted after every
 * commit that deletes rows (at a commit interval from 1.5 s up), while compactions, which hold the
 * table's commit lock a group at a time, take at most about a third of the table's time. After
 * every pass the thread rests as long as the pass took before it starts the next table's: at most
 * half of one core goes to maintenance, whatever the number of tables due.
 */
public final class TableMaintenance implements CommitObserver, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TableMaintenance.class);

  /** How often the thread looks for due tables. */
  static final long POLL_MS = 1_000;

  /** Set when the coordinator closes: what fails after that is the closing, not the table. */
  private volatile boolean closed;

  private final String connector;
  private final Map<String, TableFormat> formats;
  private final MaintenanceSettings settings;
  private final Clock clock;
  private final FaultInjection faults;
  private final MaintenanceObserver observer;
  private final Map<TableId, Long> dueAt = new ConcurrentHashMap<>();

  /** When each table's latest pass ended: delete compactions keep their gap from it. */
  private final Map<TableId, Long> lastPassAt = new ConcurrentHashMap<>();

  /** How long each table's latest pass took: the gap after it is a multiple of it. */
  private final Map<TableId, Long> lastPassMs = new ConcurrentHashMap<>();

  /** A delete compaction waits this many times the last pass's duration after it. */
  static final int DELETE_GAP_PER_PASS_DURATION = 2;

  /**
   * The thread starts no table's pass before this: after each pass it rests as long as the pass
   * took, so that maintenance takes at most half of one core, however many tables are due (hundreds
   * of small primary-key tables, each compacted after its commits).
   */
  private volatile long restUntil;

  /**
   * Set by {@link #start()}: from then on a table due before the next poll gets a pass of its own.
   */
  private volatile boolean started;

  private final ScheduledExecutorService thread;

  /** Hears what maintenance did (for metrics). Called from the maintenance thread. */
  public interface MaintenanceObserver {
    MaintenanceObserver NONE =
        new MaintenanceObserver() {
          @Override
          public void maintained(TableId table, MaintenanceReport report, long durationMs) {}

          @Override
          public void maintenanceFailed(TableId table) {}
        };

    void maintained(TableId table, MaintenanceReport report, long durationMs);

    void maintenanceFailed(TableId table);
  }

  public TableMaintenance(
      String connector,
      Map<String, TableFormat> formats,
      MaintenanceSettings settings,
      Clock clock,
      FaultInjection faults,
      MaintenanceObserver observer) {
    this.connector = connector;
    this.formats = formats;
    this.settings = settings;
    this.clock = clock;
    this.faults = faults;
    this.observer = observer;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            ConnectorThreads.factory(
                "streamhouse-maintenance-" + connector.replace("%", "%%"),
                Thread.NORM_PRIORITY - 1));
  }

  /** Starts looking for due tables. */
  public void start() {
    started = true;
    thread.scheduleWithFixedDelay(this::passSafely, POLL_MS, POLL_MS, TimeUnit.MILLISECONDS);
  }

  @Override
  public void committed(
      TableId table, CommitOutcome outcome, long bytes, long durationMs, int rejectedBatches) {
    long now = clock.millis();
    dueAt.putIfAbsent(table, now);
    if (settings.compactsDeletes() && deletesDue(table)) {
      long gap =
          Math.min(
              settings.deleteCompactionGapMs(),
              DELETE_GAP_PER_PASS_DURATION * lastPassMs.getOrDefault(table, 0L));
      long at = Math.max(Math.max(now, restUntil), lastPassAt.getOrDefault(table, 0L) + gap);
      dueAt.merge(table, at, Math::min);
      if (started && !closed) {
        // Not up to a poll later: a compaction that misses its moment misses a commit's deletes.
        try {
          thread.schedule(this::passSafely, at - now + 1, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
          LOG.debug("Maintenance of {} not scheduled: the coordinator is closing", table);
        }
      }
    }
  }

  private boolean deletesDue(TableId table) {
    TableFormat format = formats.get(table.catalog());
    try {
      return format != null && format.deletesDue(table, settings);
    } catch (RuntimeException e) { // a question about the table must never fail the commit
      LOG.debug("Cannot tell whether {} is due for compaction: {}", table, e.toString());
      return false;
    }
  }

  @Override
  public void failed(TableId table) {}

  private void passSafely() {
    try {
      pass();
    } catch (Throwable t) { // a scheduled task that throws is never run again
      LOG.error("Table maintenance pass failed", t);
    }
  }

  /** One pass over the tables that are due; returns how many were maintained. */
  int pass() {
    long now = clock.millis();
    long deadline = System.nanoTime() + settings.timeBudgetMs() * 1_000_000;
    List<Map.Entry<TableId, Long>> due =
        dueAt.entrySet().stream()
            .filter(e -> e.getValue() <= now)
            .sorted(Map.Entry.comparingByValue(Comparator.naturalOrder()))
            .toList();
    int maintained = 0;
    for (Map.Entry<TableId, Long> e : due) {
      if (System.nanoTime() >= deadline) {
        LOG.info(
            "Maintenance time budget of {} ms used up; {} tables wait for the next pass",
            settings.timeBudgetMs(),
            due.size() - maintained);
        break;
      }
      long start = clock.millis();
      if (start < restUntil) {
        break; // the rest follow once the thread rested: the next poll, or their own schedule
      }
      maintain(e.getKey(), deadline);
      long end = clock.millis();
      long tookMs = Math.max(0, end - start);
      restUntil = end + tookMs;
      lastPassAt.put(e.getKey(), end);
      lastPassMs.put(e.getKey(), tookMs);
      dueAt.put(e.getKey(), end + settings.intervalMs());
      maintained++;
    }
    return maintained;
  }

  private void maintain(TableId table, long deadline) {
    TableFormat format = formats.get(table.catalog());
    if (format == null) {
      return;
    }
    long start = System.nanoTime();
    try {
      MaintenanceReport report =
          format.maintain(
              table,
              settings,
              deadline,
              new MaintenanceCheckpoints() {
                @Override
                public void afterExpiryCommit() {
                  faults.at(FaultInjection.Point.AFTER_EXPIRY_COMMIT);
                }

                @Override
                public void beforeRewriteCommit() {
                  faults.at(FaultInjection.Point.BEFORE_REWRITE_COMMIT);
                }
              });
      long durationMs = (System.nanoTime() - start) / 1_000_000;
      observer.maintained(table, report, durationMs);
      if (report.changedSomething()) {
        LOG.info(
            "Maintained {} in {} ms: {} snapshots expired ({} files deleted), {} files "
                + "({} bytes) rewritten into {}, {} rewrites lost to other commits, {} orphan files "
                + "deleted, {} live data files",
            table,
            durationMs,
            report.snapshotsExpired(),
            report.expiredFilesDeleted(),
            report.filesRewritten(),
            report.bytesRewritten(),
            report.filesWritten(),
            report.rewriteConflicts(),
            report.orphansDeleted(),
            report.liveDataFiles());
      }
    } catch (RuntimeException e) {
      if (closed) {
        // The coordinator is closing (a rebalance, a stop): its pools refuse work; not a failure.
        LOG.debug("Maintenance of {} stopped by the coordinator's close: {}", table, e.toString());
        return;
      }
      observer.maintenanceFailed(table);
      LOG.warn(
          "Maintenance of {} failed; tried again in {} ms: {}",
          table,
          settings.intervalMs(),
          e.toString(),
          e);
    }
  }

  @Override
  public void close() {
    closed = true;
    thread.shutdownNow();
    try {
      thread.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
