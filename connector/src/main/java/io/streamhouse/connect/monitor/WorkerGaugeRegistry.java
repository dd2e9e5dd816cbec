package io.streamhouse.connect.monitor;

import java.util.LinkedHashMap;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;

/**
 * A task's gauges in Connect's plugin metrics (KIP-877, Kafka 4.1+), which add the {@code
 * connector} and {@code task} tags and publish them under {@code kafka.connect:type=plugins}. This
 * class is loaded only on such a worker: {@link GaugeRegistries#forTask} makes it.
 */
final class WorkerGaugeRegistry implements GaugeRegistry {
  private final PluginMetrics metrics;

  WorkerGaugeRegistry(PluginMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public MetricName metricName(String name, String doc, LinkedHashMap<String, String> tags) {
    return metrics.metricName(name, doc, tags);
  }

  @Override
  public void add(MetricName name, Gauge<?> gauge) {
    metrics.addMetric(name, gauge);
  }

  /** Nothing to do: Connect removes a task's plugin metrics itself once the task has stopped. */
  @Override
  public void close() {}
}
