package io.streamhouse.connect.monitor;

import java.util.LinkedHashMap;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;

/**
 * Where one task instance publishes its gauges: Connect's plugin metrics on a Kafka 4.1+ worker
 * ({@link WorkerGaugeRegistry}), the connector's own JMX registry on an older one ({@link
 * JmxGaugeRegistry}). Both name a metric the same way: group {@code plugins}, tags {@code
 * connector} and {@code task} first, then the metric's own. {@link GaugeRegistries#forTask} picks
 * one. Only kafka-clients types that Kafka 3.x workers have appear here.
 */
public interface GaugeRegistry {
  /** The full name of the metric {@code name} with its own {@code tags}. */
  MetricName metricName(String name, String doc, LinkedHashMap<String, String> tags);

  /**
   * Publishes {@code gauge} as {@code name}.
   *
   * @throws IllegalArgumentException when another instance of the task still holds that name
   */
  void add(MetricName name, Gauge<?> gauge);

  /** Removes what this instance published; later additions are dropped. */
  void close();
}
