package io.streamhouse.connect.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.Test;

/** The gauges the monitor registers: their names (the documented ones) and values. */
class LagMetricsTest {
  /**
   * Connect's own plugin metrics over one worker-wide registry: each task instance gets its own
   * {@link PluginMetricsImpl} (tags connector and task), as the worker does.
   */
  static final class WorkerRegistry {
    final Metrics metrics = new Metrics();

    PluginMetricsImpl taskInstance() {
      return new PluginMetricsImpl(metrics, Map.of("connector", "c", "task", "0"));
    }

    List<MetricName> names() {
      return metrics.metrics().keySet().stream().filter(n -> n.group().equals("plugins")).toList();
    }

    Object value(String name, Map<String, String> tags) {
      Map<String, String> full = new HashMap<>(tags);
      full.put("connector", "c");
      full.put("task", "0");
      return metrics.metrics().entrySet().stream()
          .filter(
              e ->
                  e.getKey().group().equals("plugins")
                      && e.getKey().name().equals(name)
                      && e.getKey().tags().equals(full))
          .map(e -> e.getValue().metricValue())
          .findFirst()
          .orElseThrow();
    }
  }

  @Test
  void everyDocumentedMetricIsRegisteredOnceAndReadsTheLatestCheck() {
    WorkerRegistry registry = new WorkerRegistry();
    LagMetrics metrics =
        new LagMetrics(new PluginGauges(new WorkerGaugeRegistry(registry.taskInstance()), "c-0"));
    TopicPartition p0 = new TopicPartition("orders", 0);
    TopicPartition p1 = new TopicPartition("orders", 1);
    metrics.update(p0, new PartitionLag(10, 5, 0.25, 0, 15, 0));
    metrics.update(p1, new PartitionLag(30, 8, 0.4, 0.6, 12, 0));
    metrics.update(p0, new PartitionLag(20, 6, 0.3, 0, 14, 0));
    metrics.lost(p1, 7);

    List<String> names = new ArrayList<>();
    registry.names().stream()
        .filter(n -> "0".equals(n.tags().get("partition")) || !n.tags().containsKey("partition"))
        .forEach(n -> names.add(n.name()));
    List<String> documented = new ArrayList<>(LagMetrics.PARTITION_METRICS);
    documented.addAll(LagMetrics.TOPIC_METRICS);
    assertThat(names).containsExactlyInAnyOrderElementsOf(documented);

    Map<String, String> p0Tags = Map.of("topic", "orders", "partition", "0");
    Map<String, String> p1Tags = Map.of("topic", "orders", "partition", "1");
    Map<String, String> topic = Map.of("topic", "orders");
    assertThat(registry.value("lag-records", p0Tags)).isEqualTo(20.0);
    assertThat(registry.value("data-loss-records-total", p1Tags)).isEqualTo(7L);
    assertThat(registry.value("topic-lag-records", topic)).isEqualTo(50.0);
    assertThat(registry.value("topic-lag-seconds", topic)).isEqualTo(8.0);
    assertThat(registry.value("topic-retention-used-ratio", topic)).isEqualTo(0.6);
    assertThat(registry.value("topic-seconds-to-data-loss", topic)).isEqualTo(12.0);
  }

  @Test
  void aTaskRestartedBeforeItsPreviousInstanceLetGoOfItsMetricsStartsAndPublishesThemOnceItHas()
      throws Exception {
    WorkerRegistry registry = new WorkerRegistry();
    PluginMetricsImpl staleInstance = registry.taskInstance();
    TaskMetrics stale =
        new TaskMetrics(
            new PluginGauges(new WorkerGaugeRegistry(staleInstance), "c-0"),
            () -> 0,
            () -> 0,
            () -> 0,
            () -> 0);
    new TableMetrics(
            new PluginGauges(new WorkerGaugeRegistry(staleInstance), "c-0"),
            java.time.Clock.systemUTC(),
            60_000)
        .failed(new io.streamhouse.connect.protocol.TableId("c", List.of("db"), "t"));
    stale.written();

    PluginGauges liveGauges =
        new PluginGauges(new WorkerGaugeRegistry(registry.taskInstance()), "c-0");
    TaskMetrics live = new TaskMetrics(liveGauges, () -> 0, () -> 0, () -> 0, () -> 0);
    TableMetrics liveTables = new TableMetrics(liveGauges, java.time.Clock.systemUTC(), 60_000);
    io.streamhouse.connect.protocol.TableId table =
        new io.streamhouse.connect.protocol.TableId("c", List.of("db"), "t");
    liveTables.failed(table);
    liveTables.failed(table);
    live.written();
    live.written();
    assertThat(liveGauges.pendingCount())
        .isEqualTo(TaskMetrics.NAMES.size() + TableMetrics.NAMES.size());
    liveGauges.retryPending();
    assertThat(registry.value("task-records-written-total", Map.of()))
        .as("the old instance's figure until it closes")
        .isEqualTo(1L);

    staleInstance.close(); // what the worker does when the old task finally stops
    liveGauges.retryPending();
    assertThat(liveGauges.pendingCount()).isZero();
    assertThat(registry.value("task-records-written-total", Map.of())).isEqualTo(2L);
    assertThat(registry.value("table-commit-failures-total", Map.of("table", "c:db.t")))
        .isEqualTo(2.0);
    assertThat(registry.value("table-commit-interval-seconds", Map.of("table", "c:db.t")))
        .isEqualTo(60.0);
  }

  @Test
  void aWorkerWithoutPluginMetricsStillTracksLoss() {
    LagMetrics metrics = new LagMetrics(PluginGauges.none());
    TopicPartition p0 = new TopicPartition("orders", 0);
    metrics.update(p0, new PartitionLag(1, 1, 0, 0, 1, 3));
    metrics.lost(p0, 3);
    assertThat(metrics.lostTotal(p0)).isEqualTo(3);
  }
}
