package io.streamhouse.connect.monitor;

import io.streamhouse.connect.commit.coordinator.CommitObserver;
import io.streamhouse.connect.commit.coordinator.TableMaintenance;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.MaintenanceReport;
import io.streamhouse.connect.protocol.TableId;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.common.metrics.Gauge;

/**
 * Per-table commit metrics of the coordinator (task 0), tag {@code table}: freshness, what was
 * committed, how long commits take, rejected batches and failed commits. Gauges over counters kept
 * here; docs/monitoring.md lists them.
 */
public final class TableMetrics implements CommitObserver, TableMaintenance.MaintenanceObserver {
  public static final List<String> NAMES =
      List.of(
          "table-last-commit-age-seconds",
          "table-commits-total",
          "table-records-committed-total",
          "table-files-committed-total",
          "table-bytes-committed-total",
          "table-commit-duration-ms",
          "table-rejected-batches-total",
          "table-commit-failures-total",
          "table-commit-interval-seconds",
          "table-snapshots-expired-total",
          "table-expired-files-deleted-total",
          "table-files-rewritten-total",
          "table-bytes-rewritten-total",
          "table-files-written-by-compaction-total",
          "table-rewrite-conflicts-total",
          "table-orphan-files-deleted-total",
          "table-live-data-files",
          "table-maintenance-duration-ms",
          "table-compaction-duration-ms",
          "table-maintenance-failures-total");

  /** Only the dead-letter table's. */
  public static final List<String> DEAD_LETTER_NAMES = List.of("table-dead-letter");

  /** What the coordinator did to one table; fields are read by gauges on other threads. */
  private static final class Counters {
    volatile long lastCommitMs = -1;
    volatile long commits;
    volatile long records;
    volatile long files;
    volatile long bytes;
    volatile long lastDurationMs;
    volatile long rejected;
    volatile long failures;
    volatile long snapshotsExpired;
    volatile long expiredFilesDeleted;
    volatile long filesRewritten;
    volatile long bytesRewritten;
    volatile long filesWritten;
    volatile long rewriteConflicts;
    volatile long orphansDeleted;
    volatile long liveDataFiles = -1;
    volatile long lastMaintenanceMs;
    volatile long lastCompactionMs;
    volatile long maintenanceFailures;
  }

  private final PluginGauges gauges;
  private final Clock clock;
  private final double commitIntervalSeconds;
  private final Map<TableId, Counters> tables = new ConcurrentHashMap<>();
  private volatile TableId deadLetterTable;

  /**
   * With {@link PluginGauges#none()} the counters are kept and nothing is published. {@code
   * commitIntervalMs} is published per table so that an alert can say "3 commit intervals".
   */
  public TableMetrics(PluginGauges gauges, Clock clock, long commitIntervalMs) {
    this.gauges = gauges;
    this.commitIntervalSeconds = commitIntervalMs / 1000.0;
    this.clock = clock;
  }

  /**
   * The dead-letter table ({@code errors.deadletter.table}): it alone gets {@code
   * table-dead-letter}, so that the stale-table alert can leave out a table that commits only when
   * bad records come. Set before the first commit.
   */
  public void deadLetterTable(TableId table) {
    this.deadLetterTable = table;
  }

  @Override
  public void committed(
      TableId table, CommitOutcome outcome, long bytes, long durationMs, int rejectedBatches) {
    Counters c = counters(table);
    synchronized (c) {
      c.lastCommitMs = clock.millis();
      c.commits++;
      c.records += outcome.records();
      c.files += outcome.files();
      c.bytes += bytes;
      c.lastDurationMs = durationMs;
      c.rejected += rejectedBatches;
    }
  }

  @Override
  public void failed(TableId table) {
    Counters c = counters(table);
    synchronized (c) {
      c.failures++;
    }
  }

  @Override
  public void maintained(TableId table, MaintenanceReport report, long durationMs) {
    Counters c = counters(table);
    synchronized (c) {
      c.snapshotsExpired += report.snapshotsExpired();
      c.expiredFilesDeleted += report.expiredFilesDeleted();
      c.filesRewritten += report.filesRewritten();
      c.bytesRewritten += report.bytesRewritten();
      c.filesWritten += report.filesWritten();
      c.rewriteConflicts += report.rewriteConflicts();
      c.orphansDeleted += report.orphansDeleted();
      if (report.liveDataFiles() >= 0) {
        c.liveDataFiles = report.liveDataFiles();
      }
      c.lastMaintenanceMs = durationMs;
      c.lastCompactionMs = report.rewriteDurationMs();
    }
  }

  @Override
  public void maintenanceFailed(TableId table) {
    Counters c = counters(table);
    synchronized (c) {
      c.maintenanceFailures++;
    }
  }

  private Counters counters(TableId table) {
    return tables.computeIfAbsent(
        table,
        t -> {
          Counters c = new Counters();
          if (gauges.enabled()) {
            LinkedHashMap<String, String> tags = new LinkedHashMap<>();
            tags.put("table", t.toString());
            gauge(
                "table-last-commit-age-seconds",
                "Seconds since the coordinator last committed the table "
                    + "(grows while the table receives nothing; read it with the topic lag)",
                tags,
                x -> x.lastCommitMs < 0 ? -1 : (clock.millis() - x.lastCommitMs) / 1000.0,
                c);
            gauge(
                "table-commits-total", "Commits of the table (a counter)", tags, x -> x.commits, c);
            gauge(
                "table-records-committed-total",
                "Rows committed (a counter)",
                tags,
                x -> x.records,
                c);
            gauge(
                "table-files-committed-total",
                "Data files committed (a counter)",
                tags,
                x -> x.files,
                c);
            gauge(
                "table-bytes-committed-total",
                "Bytes of data files committed (a counter)",
                tags,
                x -> x.bytes,
                c);
            gauge(
                "table-commit-duration-ms",
                "Duration of the last commit, compaction included",
                tags,
                x -> x.lastDurationMs,
                c);
            gauge(
                "table-rejected-batches-total",
                "Batches rejected by the watermark check (a counter)",
                tags,
                x -> x.rejected,
                c);
            gauge(
                "table-commit-failures-total",
                "Commits that failed and were retried next round (a counter)",
                tags,
                x -> x.failures,
                c);
            gauge(
                "table-commit-interval-seconds",
                "The connector's commit.interval.ms in seconds (for staleness alerts)",
                tags,
                x -> commitIntervalSeconds,
                c);
            gauge(
                "table-snapshots-expired-total",
                "Snapshots the connector's maintenance expired (a counter)",
                tags,
                x -> x.snapshotsExpired,
                c);
            gauge(
                "table-expired-files-deleted-total",
                "Manifest, manifest-list and data files deleted with expired snapshots (a counter)",
                tags,
                x -> x.expiredFilesDeleted,
                c);
            gauge(
                "table-files-rewritten-total",
                "Small data files replaced by compaction (a counter)",
                tags,
                x -> x.filesRewritten,
                c);
            gauge(
                "table-bytes-rewritten-total",
                "Bytes of the data files replaced by compaction (a counter)",
                tags,
                x -> x.bytesRewritten,
                c);
            gauge(
                "table-files-written-by-compaction-total",
                "Data files compaction wrote in place of small ones (a counter)",
                tags,
                x -> x.filesWritten,
                c);
            gauge(
                "table-rewrite-conflicts-total",
                "Compaction rewrites that lost to a concurrent commit and were dropped (a counter)",
                tags,
                x -> x.rewriteConflicts,
                c);
            gauge(
                "table-orphan-files-deleted-total",
                "Files no snapshot referenced, deleted by orphan cleanup (a counter)",
                tags,
                x -> x.orphansDeleted,
                c);
            gauge(
                "table-live-data-files",
                "Data files in the table's current snapshot, after the last maintenance pass (-1: not "
                    + "known yet)",
                tags,
                x -> x.liveDataFiles,
                c);
            gauge(
                "table-maintenance-duration-ms",
                "Duration of the table's last maintenance pass",
                tags,
                x -> x.lastMaintenanceMs,
                c);
            gauge(
                "table-compaction-duration-ms",
                "Time the table's last maintenance pass spent planning and rewriting small files",
                tags,
                x -> x.lastCompactionMs,
                c);
            gauge(
                "table-maintenance-failures-total",
                "Maintenance passes that failed and were retried at the next interval (a counter)",
                tags,
                x -> x.maintenanceFailures,
                c);
            if (t.equals(deadLetterTable)) {
              gauge(
                  "table-dead-letter",
                  "1: the connector's dead-letter table, which commits only when bad records come "
                      + "(only this table has the metric)",
                  tags,
                  x -> 1,
                  c);
            }
          }
          return c;
        });
  }

  private void gauge(
      String name,
      String doc,
      LinkedHashMap<String, String> tags,
      ToDoubleFunction<Counters> value,
      Counters c) {
    gauges.register(name, doc, tags, (Gauge<Double>) (config, now) -> value.applyAsDouble(c));
  }
}
