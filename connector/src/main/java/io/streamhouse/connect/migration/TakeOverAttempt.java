package io.streamhouse.connect.migration;

import io.streamhouse.connect.config.MigrationConfigDef;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.monitor.PluginGauges;
import io.streamhouse.connect.table.TableFormat;
import io.streamhouse.connect.table.iceberg.IcebergFormat;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt of the take-over from the Apache Iceberg sink, as task 0 makes it: read the Apache
 * control topic ({@link ApacheControlTopic}), commit what the tables lack ({@link ApacheTakeOver}),
 * move the Apache coordinator's group past what was read, and mark the take-over done in its
 * metrics. {@link #of} wires it from the connector's config.
 */
final class TakeOverAttempt implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(TakeOverAttempt.class);

  /** The longest a reading of the Apache control topic may take. */
  private static final Duration READ_TIMEOUT = Duration.ofMinutes(2);

  private final StreamhouseSinkConfig config;
  private final String client;
  private final ApacheTakeOver takeOver;
  private final TakeOverMetrics metrics;

  private TakeOverAttempt(
      StreamhouseSinkConfig config,
      String client,
      ApacheTakeOver takeOver,
      TakeOverMetrics metrics) {
    this.config = config;
    this.client = client;
    this.takeOver = takeOver;
    this.metrics = metrics;
  }

  /**
   * The attempt for {@code config} (its {@code migration.apache-iceberg.control-topic} is set):
   * commits to the Iceberg catalog of {@code formats} that {@code migration.apache-iceberg.catalog}
   * names, or to the only one.
   *
   * @throws ConnectException when there is no such catalog
   */
  static TakeOverAttempt of(
      StreamhouseSinkConfig config,
      Map<String, TableFormat> formats,
      PluginGauges gauges,
      String taskName) {
    String catalog = catalog(config, formats);
    ApacheTakeOver takeOver =
        new ApacheTakeOver(
            catalog,
            (IcebergFormat) formats.get(catalog),
            config.apacheControlTopic(),
            config.apacheGroupId());
    return new TakeOverAttempt(
        config,
        taskName + "-apache-takeover",
        takeOver,
        new TakeOverMetrics(gauges, takeOver::rejectedEvents));
  }

  private static String catalog(StreamhouseSinkConfig config, Map<String, TableFormat> formats) {
    String name = config.apacheCatalog();
    List<String> iceberg =
        formats.entrySet().stream()
            .filter(e -> e.getValue() instanceof IcebergFormat)
            .map(Map.Entry::getKey)
            .filter(n -> name.isEmpty() || n.equals(name))
            .toList();
    if (iceberg.size() != 1) {
      throw new ConnectException(
          "Connector "
              + config.connectorName()
              + ": "
              + MigrationConfigDef.CONTROL_TOPIC_CONFIG
              + " is set, so "
              + MigrationConfigDef.CATALOG_CONFIG
              + " must name one Iceberg catalog"
              + (name.isEmpty() ? " (there is not exactly one)" : " (" + name + " is not one)"));
    }
    return iceberg.get(0);
  }

  @Override
  public void run() {
    String topic = config.apacheControlTopic();
    try (ApacheControlTopic log =
        new ApacheControlTopic(config.kafkaClientProps(), topic, config.apacheGroupId(), client)) {
      ControlLog read = log.read(READ_TIMEOUT);
      ApacheTakeOver.Result result = takeOver.commitPending(read);
      LOG.info(
          "Take-over from the Apache sink ({} events read from {}): {}",
          read.records().size(),
          topic,
          result);
      if (result.complete()) {
        log.markRead(read.end());
      }
      metrics.done();
    }
  }
}
