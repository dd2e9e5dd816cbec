package io.streamhouse.connect.monitor;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.common.utils.Time;

/**
 * A task's gauges on a worker without plugin metrics (before Kafka 4.1), published by the connector
 * itself under the names a 4.1+ worker gives them: MBean {@code
 * kafka.connect:type=plugins,connector=<name>,task=<id>} followed by the metric's own tags, one
 * attribute per metric, so that one set of JMX-exporter rules, alerts and dashboards serves both.
 * It uses kafka-clients' {@link Metrics} and {@link JmxReporter}, which every worker has.
 *
 * <p>The tasks of a worker share one registry, as Connect's plugin metrics do: a task restarted
 * while its previous instance still holds a name waits for it ({@link PluginGauges}), instead of
 * two reporters taking the same MBean from each other. Each instance removes only what it added.
 */
final class JmxGaugeRegistry implements GaugeRegistry {
  /** Connect's JMX domain and the group of plugin metrics. */
  static final String JMX_DOMAIN = "kafka.connect";

  static final String GROUP = "plugins";

  private final Metrics metrics;
  private final String connector;
  private final String task;
  private final Set<MetricName> added = new HashSet<>();
  private boolean closed;

  JmxGaugeRegistry(Metrics metrics, String connector, int task) {
    this.metrics = metrics;
    this.connector = connector;
    this.task = Integer.toString(task);
  }

  /** Task {@code task} of {@code connector} in the registry of this worker. */
  static JmxGaugeRegistry forTask(String connector, int task) {
    return new JmxGaugeRegistry(WorkerRegistry.METRICS, connector, task);
  }

  /**
   * A registry that publishes the {@code plugins} group over JMX and nothing else: {@link Metrics}
   * counts its own metrics in a metric whose MBean ({@code kafka.connect:type=kafka-metrics-count})
   * is the worker's.
   */
  static Metrics newWorkerRegistry() {
    JmxReporter jmx = new JmxReporter();
    jmx.configure(
        Map.of(
            JmxReporter.INCLUDE_CONFIG, Pattern.quote(JMX_DOMAIN + ":type=" + GROUP + ",") + ".*"));
    return new Metrics(
        new MetricConfig(),
        List.<MetricsReporter>of(jmx),
        Time.SYSTEM,
        new KafkaMetricsContext(JMX_DOMAIN));
  }

  /** Made on first use: only a worker without plugin metrics gets one. */
  private static final class WorkerRegistry {
    static final Metrics METRICS = newWorkerRegistry();
  }

  @Override
  public MetricName metricName(String name, String doc, LinkedHashMap<String, String> tags) {
    LinkedHashMap<String, String> all = new LinkedHashMap<>();
    all.put("connector", connector);
    all.put("task", task);
    for (Map.Entry<String, String> tag : tags.entrySet()) {
      if (all.putIfAbsent(tag.getKey(), tag.getValue()) != null) {
        throw new IllegalArgumentException(
            "Connector "
                + connector
                + " task "
                + task
                + ": metric "
                + name
                + " cannot have a tag named "
                + tag.getKey()
                + ", which names the task");
      }
    }
    return metrics.metricName(name, GROUP, doc, all);
  }

  @Override
  public synchronized void add(MetricName name, Gauge<?> gauge) {
    if (closed) {
      return; // a thread of the stopped task that was still registering: nothing may stay behind
    }
    metrics.addMetric(name, gauge);
    added.add(name);
  }

  @Override
  public synchronized void close() {
    closed = true;
    added.forEach(metrics::removeMetric);
    added.clear();
  }
}
