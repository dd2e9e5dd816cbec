package io.streamhouse.connect.monitor;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;

/** Registers gauges in Connect's plugin metrics. */
final class PluginGauges {
  private PluginGauges() {}

  /**
   * Adds {@code gauge} under {@code name}, replacing a metric of the same name: a task restarted on
   * the same worker while its previous instance has not let go of its metrics (a stop that timed
   * out) must start, and its figures are the live ones.
   */
  static void register(PluginMetrics metrics, MetricName name, Gauge<?> gauge) {
    try {
      metrics.addMetric(name, gauge);
    } catch (IllegalArgumentException alreadyThere) {
      metrics.removeMetric(name);
      metrics.addMetric(name, gauge);
    }
  }
}
