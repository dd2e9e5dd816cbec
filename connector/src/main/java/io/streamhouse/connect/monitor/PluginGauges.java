package io.streamhouse.connect.monitor;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gauges one task registers in its {@link GaugeRegistry}: Connect's plugin metrics (KIP-877,
 * Kafka 4.1+) or, on an older worker, the connector's own JMX registry under the same names. A task
 * restarted on the same worker while its previous instance still holds metrics of the same names
 * (its stop timed out, or it is frozen) must start anyway: such a name waits and is registered by
 * {@link #retryPending()} once the previous instance let go (Connect, or {@link #close()} on an
 * older worker, removes a task's metrics when it stops). Metrics registered by another instance
 * cannot be taken over: a registry only lets an instance remove its own.
 */
public final class PluginGauges {
  private static final Logger LOG = LoggerFactory.getLogger(PluginGauges.class);

  private final GaugeRegistry metrics;
  private final String task;
  private final Map<MetricName, Gauge<?>> pending = new ConcurrentHashMap<>();
  private final AtomicBoolean warned = new AtomicBoolean();

  /** {@code metrics} null: nothing is registered (tests of what the metrics count). */
  public PluginGauges(GaugeRegistry metrics, String task) {
    this.metrics = metrics;
    this.task = task;
  }

  public static PluginGauges none() {
    return new PluginGauges(null, "none");
  }

  public boolean enabled() {
    return metrics != null;
  }

  /**
   * Registers {@code gauge} as {@code name} with {@code tags} (the registry adds connector and
   * task).
   */
  public void register(
      String name, String doc, LinkedHashMap<String, String> tags, Gauge<?> gauge) {
    if (metrics == null) {
      return;
    }
    MetricName metric = metrics.metricName(name, doc, tags);
    if (!tryAdd(metric, gauge)) {
      pending.put(metric, gauge);
      if (warned.compareAndSet(false, true)) {
        LOG.warn(
            "Metric {} {} is still held by a previous instance of this task on this worker; "
                + "this task's metrics are published once it has stopped",
            name,
            tags);
      }
    }
  }

  /** Registers the gauges that waited for a previous instance of the task; cheap when none wait. */
  public void retryPending() {
    if (pending.isEmpty()) {
      return;
    }
    pending.entrySet().removeIf(e -> tryAdd(e.getKey(), e.getValue()));
    if (pending.isEmpty()) {
      LOG.info("Every metric is published");
    }
  }

  /**
   * The task stopped: removes what it registered (on a 4.1+ worker Connect does it) and drops what
   * still waited.
   */
  public void close() {
    pending.clear();
    if (metrics != null) {
      metrics.close();
    }
  }

  int pendingCount() {
    return pending.size();
  }

  private boolean tryAdd(MetricName metric, Gauge<?> gauge) {
    try {
      metrics.add(metric, gauge);
      return true;
    } catch (IllegalArgumentException heldElsewhere) {
      return false;
    }
  }
}
