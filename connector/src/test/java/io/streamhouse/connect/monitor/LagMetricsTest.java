package io.streamhouse.connect.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.junit.jupiter.api.Test;

/** The gauges the monitor registers: their names (the documented ones) and values. */
class LagMetricsTest {
  /** Records what a worker's plugin metrics would hold. */
  static final class RecordingPluginMetrics implements PluginMetrics {
    final Map<MetricName, MetricValueProvider<?>> metrics = new HashMap<>();

    @Override
    public MetricName metricName(String name, String description, LinkedHashMap<String, String> tags) {
      return new MetricName(name, "plugins", description, tags);
    }

    @Override
    public void addMetric(MetricName name, MetricValueProvider<?> provider) {
      if (metrics.putIfAbsent(name, provider) != null) { // as Kafka's Metrics does
        throw new IllegalArgumentException("A metric named '" + name + "' already exists");
      }
    }

    @Override
    public void removeMetric(MetricName name) {
      metrics.remove(name);
    }

    @Override
    public Sensor addSensor(String name) {
      throw new UnsupportedOperationException("the lag metrics use gauges only");
    }

    @Override
    public void removeSensor(String name) {}

    Object value(String name, Map<String, String> tags) {
      return metrics.entrySet().stream().filter(e -> e.getKey().name().equals(name) && e.getKey().tags().equals(tags))
          .map(e -> ((Gauge<?>) e.getValue()).value(null, 0)).findFirst().orElseThrow();
    }
  }

  @Test
  void everyDocumentedMetricIsRegisteredOnceAndReadsTheLatestCheck() {
    RecordingPluginMetrics registry = new RecordingPluginMetrics();
    LagMetrics metrics = new LagMetrics(registry);
    TopicPartition p0 = new TopicPartition("orders", 0);
    TopicPartition p1 = new TopicPartition("orders", 1);
    metrics.update(p0, new PartitionLag(10, 5, 0.25, 0, 15, 0));
    metrics.update(p1, new PartitionLag(30, 8, 0.4, 0.6, 12, 0));
    metrics.update(p0, new PartitionLag(20, 6, 0.3, 0, 14, 0));
    metrics.lost(p1, 7);

    List<String> names = new ArrayList<>();
    registry.metrics.keySet().stream().filter(n -> "0".equals(n.tags().get("partition")) || !n.tags().containsKey("partition"))
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
  void aTaskRestartedBeforeItsPreviousInstanceLetGoOfItsMetricsStartsAndReportsItsOwnFigures() {
    RecordingPluginMetrics registry = new RecordingPluginMetrics();
    TaskMetrics stale = new TaskMetrics(registry);
    stale.written();
    TaskMetrics live = new TaskMetrics(registry);
    live.written();
    live.written();
    assertThat(registry.value("task-records-written-total", Map.of())).isEqualTo(2L);
    TableMetrics first = new TableMetrics(registry, java.time.Clock.systemUTC());
    TableMetrics second = new TableMetrics(registry, java.time.Clock.systemUTC());
    io.streamhouse.connect.table.TableId table = new io.streamhouse.connect.table.TableId("c", List.of("db"), "t");
    first.failed(table);
    second.failed(table);
    second.failed(table);
    assertThat(registry.value("table-commit-failures-total", Map.of("table", "c:db.t"))).isEqualTo(2.0);
  }

  @Test
  void aWorkerWithoutPluginMetricsStillTracksLoss() {
    LagMetrics metrics = new LagMetrics(null);
    TopicPartition p0 = new TopicPartition("orders", 0);
    metrics.update(p0, new PartitionLag(1, 1, 0, 0, 1, 3));
    metrics.lost(p0, 3);
    assertThat(metrics.lostTotal(p0)).isEqualTo(3);
  }
}
