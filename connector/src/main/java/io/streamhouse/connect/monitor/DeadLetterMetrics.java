package io.streamhouse.connect.monitor;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.metrics.Gauge;

/**
 * Records a task wrote to the dead-letter table, per table they were meant for and stage (Connect
 * adds the connector and task tags); each pair is registered when its first record comes.
 */
public final class DeadLetterMetrics {
  public static final List<String> NAMES = List.of("dead-letter-records-total");

  /** The {@code table} tag of a record no route took. */
  public static final String NO_TABLE = "none";

  private final PluginGauges gauges;
  private final Map<List<String>, AtomicLong> counts = new ConcurrentHashMap<>();

  public DeadLetterMetrics(PluginGauges gauges) {
    this.gauges = gauges;
  }

  /** One record meant for {@code table} (null: none) failed at {@code stage} and was written. */
  public void written(String table, String stage) {
    String tag = table == null ? NO_TABLE : table;
    counts
        .computeIfAbsent(
            List.of(tag, stage),
            k -> {
              AtomicLong count = new AtomicLong();
              LinkedHashMap<String, String> tags = new LinkedHashMap<>();
              tags.put("table", tag);
              tags.put("stage", stage);
              gauges.register(
                  "dead-letter-records-total",
                  "Records this task wrote to the dead-letter table (errors.deadletter.table), by the "
                      + "table they were meant for and the stage that failed (a counter)",
                  tags,
                  (Gauge<Long>) (config, now) -> count.get());
              return count;
            })
        .incrementAndGet();
  }

  /** The count for {@code table} and {@code stage}; 0 if none. */
  public long count(String table, String stage) {
    AtomicLong c = counts.get(List.of(table == null ? NO_TABLE : table, stage));
    return c == null ? 0 : c.get();
  }
}
