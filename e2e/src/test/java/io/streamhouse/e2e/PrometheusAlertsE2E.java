package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The shipped alert rules (docker/prometheus/alerts.yml) in a real Prometheus (Debian's package,
 * installed by .ci/run) scraping a worker through the JMX exporter: a topic with 20 s retention,
 * the connector paused while records keep coming. The half-retention alert fires before Kafka
 * deletes anything unread, then the data-loss alert fires, and after a resume the lag recovers. The
 * stale-table alert fires while paused, a second connector with a failed task fires the failed-task
 * alert, and a third whose dead-letter table gets a record fires the dead-letter alert. While the
 * connector lags, every query of the Grafana dashboard returns data.
 */
class PrometheusAlertsE2E {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void warnBeforeLossThenLossThenRecovery() throws Exception {
    Path prometheusBinary =
        Path.of(System.getProperty("streamhouse.prometheus", "/usr/bin/prometheus"));
    assertThat(prometheusBinary)
        .as("Prometheus: ./test.sh installs or fetches it, or give -Dstreamhouse.prometheus=PATH")
        .isExecutable();
    int agentPort = FreePorts.next();
    try (LocalStack stack =
        E2eSettings.stack("PrometheusAlertsE2E", E2eSettings.kafkaVersion())
            .brokerConfig("log.retention.check.interval.ms", "1000")
            .workerJvmFlags(JmxExporterAgent.workerFlags(agentPort))
            .start()) {
      String topic = "expiring";
      stack.createTopic(topic, 1, Map.of("retention.ms", "20000", "segment.ms", "1000"));
      ConnectorExample sink =
          IcebergSink.config(
              stack, "alerting", topic, Map.of("tasks.max", "1", "lag.check-interval.ms", "1000"));
      stack.connect().putConfig(sink.name(), sink.config());
      IcebergFaultsE2E.produce(stack, topic, 0, 20, new HashSet<>());
      // A second connector whose task fails on a malformed record: the failed-task alert.
      stack.createTopic("poison", 1, Map.of());
      ConnectorExample failing =
          IcebergSink.config(
              stack, "failing", "poison", Map.of("tasks.max", "1", "errors.tolerance", "none"));
      stack.connect().putConfig(failing.name(), failing.config());
      try (JsonRecordProducer producer = stack.producer()) {
        producer.sendRaw(
            "poison", 0, "malformed", "{\"schema\": {\"type\": \"struct\", \"fields\": [");
        producer.flush();
      }

      // A third connector with a dead-letter table, fed a record its table refuses (a string id
      // for a long column): the dead-letter alert.
      stack.createTopic("refused", 1, Map.of());
      ConnectorExample deadLettering =
          IcebergSink.config(
              stack,
              "dead-lettering",
              "refused",
              Map.of("tasks.max", "1", "errors.deadletter.table", "e2e.refused_dead_letters"));
      stack.connect().putConfig(deadLettering.name(), deadLettering.config());
      try (JsonRecordProducer producer = stack.producer()) {
        SampleOrders.Order order = SampleOrders.generate(1).get(0);
        producer.sendWithSchema("refused", 0, order.key(), SampleOrders.SCHEMA, order.payload());
        Map<String, Object> wrong = new java.util.HashMap<>(order.payload());
        wrong.put("id", "x-1");
        producer.sendWithSchema(
            "refused",
            0,
            "wrong",
            BadInputE2E.orderWithoutId().field("id", "string", false),
            wrong);
        producer.flush();
      }

      int promPort = FreePorts.next();
      Path dir = Files.createDirectories(stack.runDir().resolve("prometheus"));
      Files.writeString(
          dir.resolve("prometheus.yml"),
          String.join(
              "\n",
              "global: {scrape_interval: 1s, evaluation_interval: 1s}",
              "rule_files: ['"
                  + E2eSettings.repoRoot().resolve("docker/prometheus/alerts.yml")
                  + "']",
              "scrape_configs:",
              "  - job_name: connect",
              "    static_configs: [{targets: ['127.0.0.1:" + agentPort + "']}]",
              ""));
      // The Docker stack's scrape config (its rule file at this checkout's path) passes promtool.
      Path stackConfig = dir.resolve("stack-prometheus.yml");
      Files.writeString(
          stackConfig,
          Files.readString(E2eSettings.repoRoot().resolve("docker/prometheus/prometheus.yml"))
              .replace(
                  "/etc/prometheus/alerts.yml",
                  E2eSettings.repoRoot().resolve("docker/prometheus/alerts.yml").toString()));
      Process check =
          new ProcessBuilder(
                  prometheusBinary.resolveSibling("promtool").toString(),
                  "check",
                  "config",
                  stackConfig.toString())
              .redirectErrorStream(true)
              .start();
      String checked = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(check.waitFor()).as(checked).isZero();
      long rules =
          Files.readAllLines(E2eSettings.repoRoot().resolve("docker/prometheus/alerts.yml"))
              .stream()
              .filter(line -> line.trim().startsWith("- alert:"))
              .count();
      assertThat(checked).contains("SUCCESS: " + rules + " rules found");

      Process prometheus =
          new ProcessBuilder(
                  prometheusBinary.toString(),
                  "--config.file=" + dir.resolve("prometheus.yml"),
                  "--storage.tsdb.path=" + dir.resolve("data"),
                  "--web.listen-address=127.0.0.1:" + promPort)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("prometheus.log").toFile())
              .start();
      ScheduledExecutorService producing = Executors.newSingleThreadScheduledExecutor();
      try {
        String api = "http://127.0.0.1:" + promPort + "/api/v1/";
        await()
            .atMost(Duration.ofMinutes(1))
            .pollInterval(Duration.ofSeconds(1))
            .ignoreException(ConnectException.class) // Prometheus is still starting
            .untilAsserted(
                () ->
                    assertThat(
                            value(
                                api, "sum(streamhouse_topic_lag_records{topic=\"" + topic + "\"})"))
                        .isEqualTo(0.0));

        stack.connect().pause(sink.name());
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    stack
                        .connect()
                        .status(sink.name())
                        .path("connector")
                        .path("state")
                        .asText()
                        .equals("PAUSED"));
        AtomicLong next = new AtomicLong(20);
        // A record a second: segments roll (segment.ms=1000), so old ones can be deleted.
        producing.scheduleAtFixedRate(
            () ->
                IcebergFaultsE2E.produce(stack, topic, next.getAndIncrement(), 1, new HashSet<>()),
            0,
            1,
            TimeUnit.SECONDS);

        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(500))
            .until(() -> firing(api).contains("StreamhouseLagHalfRetention"));
        assertThat(value(api, "sum(streamhouse_data_loss_records_total{topic=\"" + topic + "\"})"))
            .as("nothing is lost yet when the half-retention alert fires")
            .isEqualTo(0.0);
        // 3 commit intervals (2 s here) without a commit while records wait.
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(500))
            .until(() -> firing(api).contains("StreamhouseTableStale"));
        assertThat(firingFor(api, "StreamhouseTaskFailed")).containsExactly(failing.name());
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(500))
            .until(() -> firingFor(api, "StreamhouseDeadLetters").contains(deadLettering.name()));
        assertThat(firingFor(api, "StreamhouseDeadLetters")).containsExactly(deadLettering.name());
        // Lag, commits, a counter at 0, a firing alert: every panel of the dashboard has something
        // to show.
        assertEveryDashboardQueryReturnsData(api, sink.name());

        // 80 % of the retention: the critical alert, seconds before Kafka deletes the oldest
        // records
        // (once they are gone, the oldest unread record is young again and it resolves).
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> firing(api).contains("StreamhouseLagNearRetention"));
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(500))
            .until(() -> firing(api).contains("StreamhouseDataLoss"));
        assertThat(value(api, "sum(streamhouse_data_loss_records_total{topic=\"" + topic + "\"})"))
            .isPositive();

        producing.shutdownNow();
        stack.connect().resume(sink.name());
        await()
            .atMost(Duration.ofMinutes(1))
            .pollInterval(Duration.ofSeconds(1))
            .untilAsserted(
                () ->
                    assertThat(
                            value(
                                api, "sum(streamhouse_topic_lag_records{topic=\"" + topic + "\"})"))
                        .isEqualTo(0.0));
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(500))
            .until(() -> !firing(api).contains("StreamhouseTableStale"));
      } finally {
        producing.shutdownNow();
        prometheus.destroy();
        prometheus.waitFor(30, TimeUnit.SECONDS);
      }
      stack.connect().delete(sink.name());
      stack.connect().delete(failing.name());
    }
  }

  /**
   * Runs every query of docker/grafana/dashboards/streamhouse-sink.json as Grafana would, with the
   * connector variable at its "All" value: each returns data, and the variable lists {@code
   * connector}.
   */
  private void assertEveryDashboardQueryReturnsData(String api, String connector) throws Exception {
    JsonNode dashboard =
        JSON.readTree(
            E2eSettings.repoRoot()
                .resolve("docker/grafana/dashboards/streamhouse-sink.json")
                .toFile());
    JsonNode variable = dashboard.path("templating").path("list").get(0);
    Matcher labelValues =
        Pattern.compile("label_values\\((\\w+), (\\w+)\\)")
            .matcher(variable.path("definition").asText());
    assertThat(labelValues.matches()).as("variable query %s", variable.path("definition")).isTrue();
    JsonNode values =
        get(api
                + "label/"
                + labelValues.group(2)
                + "/values?match[]="
                + URLEncoder.encode(labelValues.group(1), StandardCharsets.UTF_8))
            .path("data");
    assertThat(values).extracting(JsonNode::asText).contains(connector);

    int queries = 0;
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        String expr =
            target
                .path("expr")
                .asText()
                .replace("$connector", variable.path("allValue").asText())
                .replace("$__rate_interval", "1m")
                .replace("$__range", "1h");
        JsonNode result =
            get(api + "query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8))
                .path("data")
                .path("result");
        assertThat(result)
            .as("panel '%s' query %s", panel.path("title").asText(), expr)
            .isNotEmpty();
        List<String> connectors = new ArrayList<>();
        result.forEach(
            series -> connectors.add(series.path("metric").path("connector").asText(connector)));
        assertThat(connectors)
            .as("panel '%s' query %s", panel.path("title").asText(), expr)
            .contains(connector);
        queries++;
      }
    }
    assertThat(queries).isGreaterThanOrEqualTo(15);
  }

  private JsonNode get(String url) throws Exception {
    return JSON.readTree(
        http.send(
                HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString())
            .body());
  }

  /** The single value of an instant query; NaN while it returns nothing. */
  private double value(String api, String query) throws Exception {
    JsonNode result =
        get(api + "query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8))
            .path("data")
            .path("result");
    return result.isEmpty() ? Double.NaN : result.get(0).path("value").get(1).asDouble();
  }

  /** The connectors for which {@code alert} fires now. */
  private List<String> firingFor(String api, String alert) throws Exception {
    List<String> connectors = new ArrayList<>();
    for (JsonNode a : get(api + "alerts").path("data").path("alerts")) {
      if (a.path("state").asText().equals("firing")
          && a.path("labels").path("alertname").asText().equals(alert)) {
        connectors.add(a.path("labels").path("connector").asText());
      }
    }
    return connectors;
  }

  /** Names of the alerts firing now. */
  private List<String> firing(String api) throws Exception {
    List<String> names = new ArrayList<>();
    for (JsonNode alert : get(api + "alerts").path("data").path("alerts")) {
      if (alert.path("state").asText().equals("firing")) {
        names.add(alert.path("labels").path("alertname").asText());
      }
    }
    return names;
  }
}
