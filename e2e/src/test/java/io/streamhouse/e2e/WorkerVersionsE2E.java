package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The same archive on older workers users still run: it must use only public Connect and client
 * APIs, and publish the same metrics. A 4.1+ worker (4.3.1 here) has plugin metrics, read as on 4.4
 * by LagMonitorE2E and JmxExporterE2E; on 3.9.1 the connector registers them itself, under the same
 * MBean names, so that the lag and time-to-loss figures read the same over JMX and through the JMX
 * exporter with the shipped rules, and go away when the connector is deleted. (4.4.0 is covered by
 * every other e2e class.)
 */
class WorkerVersionsE2E {
  private static final String LOG_LINE = "has no plugin metrics";

  @ParameterizedTest(name = "Kafka {0}")
  @ValueSource(strings = {"3.9.1", "4.3.1"})
  void theConnectorRunsAndPublishesItsMetricsOnAnOlderWorker(String kafkaVersion) throws Exception {
    int exporterPort = FreePorts.next();
    try (LocalStack stack =
        E2eSettings.stack("worker-" + kafkaVersion, kafkaVersion)
            .workerJvmFlags(JmxExporterAgent.workerFlags(exporterPort))
            .start()) {
      assertThat(stack.connect().serverInfo().path("version").asText()).isEqualTo(kafkaVersion);
      String topic = "orders-" + kafkaVersion.replace('.', '-');
      stack.createTopic(topic, 3, Map.of("retention.ms", "3600000"));
      ConnectorExample sink =
          IcebergSink.config(
              stack,
              "compat-" + kafkaVersion.replace('.', '-'),
              topic,
              Map.of("tasks.max", "2", "lag.check-interval.ms", "1000"));
      PluginInstallE2E.runAndCheckTable(stack, sink, topic, true);
      // Plugin metrics came with Kafka 4.1: on an older worker the connector says once that it
      // registers its metrics itself.
      String log = Files.readString(stack.worker().logFile());
      boolean older = kafkaVersion.startsWith("3.");
      assertThat(log.split(LOG_LINE, -1).length - 1)
          .as("reports of the connector's own metrics registry")
          .isEqualTo(older ? 1 : 0);
      if (older) {
        assertThat(log).contains("the connector registers its metrics itself over JMX");
        // A 4.1+ worker's plugin metrics are read as on 4.4 (LagMonitorE2E, JmxExporterE2E).
        lagAndTimeToLossReadOverJmxAndTheExporter(stack, sink, topic, exporterPort);
      }
    }
  }

  /**
   * The connector, deleted by the run before, leaves no MBean; created again, it publishes its
   * metrics again (same names, freed by the previous tasks). With it paused and 300 records
   * produced, the lag monitor's figures read over JMX and scraped from the exporter; once it is
   * deleted, none of its MBeans and none of its exported series is left.
   */
  private static void lagAndTimeToLossReadOverJmxAndTheExporter(
      LocalStack stack, ConnectorExample sink, String topic, int exporterPort) throws Exception {
    String connector = sink.name();
    String connectorBeans = "kafka.connect:type=plugins,connector=" + connector + ",*";
    try (WorkerJmx jmx = new WorkerJmx(stack.worker().process().pid())) {
      awaitNoMBeans(jmx, connectorBeans);
      stack.connect().putConfig(connector, sink.config());
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                stack.connect().requireNotFailed(connector);
                assertThat(stack.connect().isRunning(connector, 2)).isTrue();
              });
      stack.connect().pause(connector);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  stack
                      .connect()
                      .status(connector)
                      .path("connector")
                      .path("state")
                      .asText()
                      .equals("PAUSED"));
      IcebergFaultsE2E.produce(stack, topic, 1_000_000, 300, new HashSet<>());
      readLagAndTimeToLoss(jmx, connector, topic, exporterPort);
      stack.connect().delete(connector);
      awaitNoMBeans(jmx, connectorBeans);
    }
    HttpRequest scrape =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + exporterPort + "/metrics")).build();
    assertThat(HttpClient.newHttpClient().send(scrape, HttpResponse.BodyHandlers.ofString()).body())
        .doesNotContainPattern("(?m)^streamhouse_\\w+\\{connector=\"" + connector + "\"");
  }

  private static void awaitNoMBeans(WorkerJmx jmx, String pattern) {
    await()
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> assertThat(jmx.names(pattern)).as("MBeans of the deleted connector").isEmpty());
  }

  /** 300 records behind: the lag and time-to-loss figures over JMX and from the exporter. */
  private static void readLagAndTimeToLoss(
      WorkerJmx jmx, String connector, String topic, int exporterPort) {
    String topicBean =
        "kafka.connect:type=plugins,connector=" + connector + ",task=0,topic=" + topic;
    String partitions = topicBean + ",partition=*";
    String topicLabels = "connector=\"" + connector + "\",task=\"0\",topic=\"" + topic + "\"";
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest scrape =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + exporterPort + "/metrics")).build();
    await()
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              assertThat(
                      jmx.values(partitions, "partition", "lag-records").values().stream()
                          .mapToDouble(Double::doubleValue)
                          .sum())
                  .isEqualTo(300.0);
              assertThat(jmx.values(topicBean, "topic", "topic-lag-records"))
                  .containsExactly(Map.entry(topic, 300.0));
              assertThat(jmx.values(topicBean, "topic", "topic-seconds-to-data-loss"))
                  .hasEntrySatisfying(topic, s -> assertThat(s).isBetween(3000.0, 3600.0));
              // -1: a partition that none of the 300 records went to, so nothing lags there
              assertThat(jmx.values(partitions, "partition", "seconds-to-data-loss"))
                  .containsOnlyKeys("0", "1", "2")
                  .allSatisfy(
                      (p, s) ->
                          assertThat(s)
                              .satisfiesAnyOf(
                                  v -> assertThat(v).isEqualTo(-1.0),
                                  v -> assertThat(v).isBetween(3000.0, 3600.0)));
            });
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              String metrics = http.send(scrape, HttpResponse.BodyHandlers.ofString()).body();
              assertThat(metrics)
                  .containsPattern("(?m)^# TYPE streamhouse_lag_records gauge$")
                  .containsPattern("(?m)^# TYPE streamhouse_data_loss_records(_total)? counter$")
                  .contains("streamhouse_topic_lag_records{" + topicLabels + "} 300.0");
              for (String partition : new String[] {"0", "1", "2"}) {
                String labels =
                    "connector=\""
                        + connector
                        + "\",partition=\""
                        + partition
                        + "\",task=\"0\",topic=\""
                        + topic
                        + "\"";
                assertThat(metrics)
                    .contains("streamhouse_lag_records{" + labels + "} ")
                    .contains("streamhouse_seconds_to_data_loss{" + labels + "} ")
                    .contains("streamhouse_data_loss_records_total{" + labels + "} 0.0");
              }
              assertThat(value(metrics, "streamhouse_topic_seconds_to_data_loss", topicLabels))
                  .isBetween(3000.0, 3600.0);
              assertThat(metrics)
                  .contains(
                      "streamhouse_task_records_written_total{connector=\""
                          + connector
                          + "\",task=\"1\"}");
            });
  }

  /** The value of the Prometheus sample {@code name{labels}} in {@code scrape}. */
  private static double value(String scrape, String name, String labels) {
    Matcher m =
        Pattern.compile("(?m)^" + Pattern.quote(name + "{" + labels + "} ") + "(\\S+)$")
            .matcher(scrape);
    assertThat(m.find()).as("%s{%s} in the scrape", name, labels).isTrue();
    return Double.parseDouble(m.group(1));
  }
}
