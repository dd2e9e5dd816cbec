package io.streamhouse.connect.monitor;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a task's metrics go: Connect's plugin metrics when the worker has them (Kafka 4.1+), else
 * the connector's own JMX registry under the same names. The one place that touches the plugin
 * metrics API, so that its absence on an older worker is caught here and nowhere else.
 */
public final class GaugeRegistries {
  private static final Logger LOG = LoggerFactory.getLogger(GaugeRegistries.class);

  /** The fallback is reported once per worker, not per task. */
  private static final AtomicBoolean OWN_REGISTRY_REPORTED = new AtomicBoolean();

  private GaugeRegistries() {}

  /** The registry of task {@code task} of {@code connector}. */
  public static GaugeRegistry forTask(SinkTaskContext context, String connector, int task) {
    try {
      return new WorkerGaugeRegistry(context.pluginMetrics());
    } catch (LinkageError olderWorker) {
      // Before Kafka 4.1 the worker's SinkTaskContext has no pluginMetrics() and its
      // kafka-clients no PluginMetrics: NoSuchMethodError or NoClassDefFoundError.
      if (!OWN_REGISTRY_REPORTED.getAndSet(true)) {
        LOG.info(
            "This Connect worker has no plugin metrics (Kafka 4.1+ has them): the connector"
                + " registers its metrics itself over JMX, under the names a 4.1+ worker gives"
                + " them (kafka.connect:type=plugins,connector=<name>,task=<id>,...)");
      }
      return JmxGaugeRegistry.forTask(connector, task);
    }
  }
}
