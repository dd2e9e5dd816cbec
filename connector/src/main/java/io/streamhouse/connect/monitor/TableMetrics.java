package io.streamhouse.connect.monitor;

import io.streamhouse.connect.commit.CommitObserver;
import io.streamhouse.connect.protocol.CommitOutcome;
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
 * here; the README lists them.
 */
public final class TableMetrics implements CommitObserver {
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
          "table-commit-interval-seconds");

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
  }

  private final PluginGauges gauges;
  private final Clock clock;
  private final double commitIntervalSeconds;
  private final Map<TableId, Counters> tables = new ConcurrentHashMap<>();

  /**
   * With {@link PluginGauges#none()} (a worker without plugin metrics) the counters are kept
   * anyway. {@code commitIntervalMs} is published per table so that an alert can say "3 commit
   * intervals".
   */
  public TableMetrics(PluginGauges gauges, Clock clock, long commitIntervalMs) {
    this.gauges = gauges;
    this.commitIntervalSeconds = commitIntervalMs / 1000.0;
    this.clock = clock;
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
