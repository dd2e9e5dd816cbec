package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The packaged plugin installed into an unmodified Connect worker, configured over REST. */
@ExtendWith(LocalStackExtension.class)
@WithoutFaultInjection
class PluginInstallE2E {
  private static final String CONNECTOR_CLASS = "io.streamhouse.connect.StreamhouseSinkConnector";

  @Test
  void theWorkerListsTheConnectorFromTheArchive(LocalStack stack) {
    JsonNode plugins = stack.connect().connectorPlugins();
    List<String> ours = new ArrayList<>();
    for (JsonNode plugin : plugins) {
      if (plugin.path("class").asText().equals(CONNECTOR_CLASS)) {
        ours.add(plugin.path("type").asText() + " " + plugin.path("version").asText());
      }
    }
    assertThat(ours)
        .containsExactly(
            "sink " + System.getProperty("streamhouse.plugin.version", pluginVersionFromArchive()));
    assertThat(stack.connect().serverInfo().path("version").asText())
        .isEqualTo(stack.kafkaVersion());
  }

  @Test
  void validateReportsErrorsOnTheKeysConcerned(LocalStack stack) {
    Map<String, String> broken =
        new LinkedHashMap<>(IcebergSink.config(stack, "broken", "orders", Map.of()).config());
    broken.put("name", "broken");
    broken.remove("topics.regex");
    broken.put("topics", "orders,ctl");
    broken.put("route.orders.topics", "orders,ctl");
    broken.remove("route.orders.topics.regex");
    broken.put("commit.interval.ms", "often");
    broken.put("commit.timeout.ms", "10");
    broken.put("control.topic", "ctl");
    broken.put("catalog.local.type", "filesystem");
    broken.put("route.orders.catalog", "lake");
    broken.put("route.orders.partition-by", "bucket(id)");
    JsonNode result = stack.connect().validate(broken);

    assertThat(keysWithErrors(result))
        .containsExactlyInAnyOrder(
            "commit.interval.ms",
            "commit.timeout.ms",
            "control.topic",
            "catalog.local.type",
            "route.orders.catalog",
            "route.orders.partition-by");
    assertThat(errors(result, "commit.interval.ms"))
        .anySatisfy(e -> assertThat(e).contains("LONG"));
    assertThat(errors(result, "commit.timeout.ms"))
        .singleElement()
        .asString()
        .contains("at least 100");
    assertThat(errors(result, "control.topic"))
        .singleElement()
        .asString()
        .contains("the control topic must not be sunk");
    assertThat(errors(result, "catalog.local.type"))
        .singleElement()
        .asString()
        .isEqualTo(
            "catalog local: type filesystem is not a iceberg catalog type; use one of [rest, jdbc, hadoop, custom]");
    assertThat(errors(result, "route.orders.catalog"))
        .singleElement()
        .asString()
        .isEqualTo("route orders: catalog 'lake' is not listed in catalogs [local]");
    assertThat(errors(result, "route.orders.partition-by"))
        .singleElement()
        .asString()
        .contains("bucket takes a width and a column");
  }

  /**
   * The test-only fault injection halts the worker JVM. On a worker started as in production (this
   * class's) a connector config cannot arm it: validation names the key, and the PUT is refused.
   */
  @Test
  void aConnectorConfigCannotArmFaultInjectionOnAProductionWorker(LocalStack stack) {
    Map<String, String> config =
        new LinkedHashMap<>(IcebergSink.config(stack, "armed", "orders", Map.of()).config());
    config.put("name", "armed");
    config.put("streamhouse.test.halt-at", "BEFORE_PREPARE:/tmp/armed-marker");
    JsonNode result = stack.connect().validate(config);
    assertThat(keysWithErrors(result)).containsExactly("streamhouse.test.halt-at");
    assertThat(errors(result, "streamhouse.test.halt-at"))
        .singleElement()
        .asString()
        .contains("test-only fault injection")
        .contains("-Dstreamhouse.fault-injection=enabled");
    assertThatThrownBy(() -> stack.connect().putConfig("armed", config))
        .hasMessageContaining("answered 400")
        .hasMessageContaining("streamhouse.test.halt-at");
    assertThatThrownBy(() -> stack.connect().status("armed")).hasMessageContaining("answered 404");
  }

  @Test
  void everyConfigExampleIsValidForTheWorker(LocalStack stack) throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(E2eSettings.repoRoot().resolve("config-examples"))) {
      files = list.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertThat(files).isNotEmpty();
    for (Path file : files) {
      ConnectorExample example =
          ConnectorExample.load(
              file,
              Map.of(
                  "KAFKA_BOOTSTRAP_SERVERS",
                  stack.bootstrapServers(),
                  "WAREHOUSE",
                  "/tmp/warehouse",
                  "ICEBERG_REST_URI",
                  "http://127.0.0.1:8181"));
      Map<String, String> config = new LinkedHashMap<>(example.config());
      config.put("name", example.name());
      JsonNode result = stack.connect().validate(config);
      assertThat(result.path("error_count").asInt())
          .as("%s: %s", file.getFileName(), result)
          .isZero();
    }
  }

  @Test
  void recordsWithConnectSchemasLandInTheirTable(LocalStack stack) {
    String topic = "orders-install";
    stack.createTopic(topic, 4, Map.of());
    ConnectorExample sink =
        IcebergSink.config(stack, "install-with-schemas", topic, Map.of("tasks.max", "2"));
    runAndCheckTable(stack, sink, topic, true);
  }

  /**
   * FastJsonConverter, registered for {@code plugin.discovery=service_load} as a converter and a
   * header converter, is found by its name in a connector's config, and the records it reads land
   * in the table; the worker's JsonConverter, which it falls back to, comes from the worker's class
   * path.
   */
  @Test
  void recordsReadByTheFastJsonConverterLandInTheirTable(LocalStack stack) throws IOException {
    String topic = "orders-fast-json";
    stack.createTopic(topic, 4, Map.of());
    ConnectorExample sink =
        fastJsonSink(
            stack,
            "install-fast-json",
            topic,
            Map.of(
                "tasks.max", "2",
                "header.converter", "io.streamhouse.connect.converter.FastJsonConverter"));
    runAndCheckTable(stack, sink, topic, true);
    String log = Files.readString(stack.worker().logFile());
    assertThat(log)
        .contains(
            "Set up the value converter class io.streamhouse.connect.converter.FastJsonConverter"
                + " for task install-fast-json-0 using the connector config");
    assertThat(log)
        .containsPattern(
            "header converter class io.streamhouse.connect.converter.FastJsonConverter for task"
                + " install-fast-json-0");
  }

  /**
   * Into a table partitioned by a number, whose writer takes the converter's strings as their UTF-8
   * bytes: text with accents, symbols outside the BMP, quotes, backslashes, escapes and control
   * characters reads back exactly as produced, an absent text as null.
   */
  @Test
  void textReadByTheFastJsonConverterReadsBackExactly(LocalStack stack) {
    String topic = "orders-fast-json-text";
    stack.createTopic(topic, 2, Map.of());
    ConnectorExample sink =
        fastJsonSink(
            stack,
            "install-fast-json-text",
            topic,
            Map.of("tasks.max", "1", "route.orders.partition-by", "bucket(4, id)"));
    ConnectJson.StructSchema schema =
        ConnectJson.struct("io.streamhouse.e2e.Text")
            .field("id", "int64", false)
            .field("text", "string", false)
            .field("note", "string", true);
    String[] texts = {
      "plain",
      "\u00e5se \u00f8l",
      "snow \u2603 and \ud83d\ude80",
      "say \"hi\" \\ back",
      "tab\tnew\nline\u0001",
      ""
    };
    Map<Long, List<Object>> produced = new LinkedHashMap<>();
    stack.connect().putConfig(sink.name(), sink.config());
    try (JsonRecordProducer producer = stack.producer()) {
      for (long id = 0; id < 300; id++) {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("id", id);
        payload.put("text", texts[(int) (id % texts.length)] + id);
        payload.put("note", id % 3 == 0 ? null : texts[(int) ((id + 1) % texts.length)]);
        producer.sendWithSchema(topic, null, "k" + id, schema, payload);
        produced.put(id, java.util.Arrays.asList(payload.get("text"), payload.get("note")));
      }
      producer.flush();
    }
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      String table = IcebergSink.tableOf(topic);
      awaitTable(stack, sink)
          .untilAsserted(
              () -> {
                assertThat(tables.exists(table)).isTrue();
                assertThat(tables.rows(table)).hasSize(produced.size());
              });
      Map<Long, List<Object>> read = new LinkedHashMap<>();
      for (Map<String, Object> row : tables.rows(table)) {
        read.put(
            (Long) row.get("id"),
            java.util.Arrays.asList(
                row.get("text"), row.get("note") == null ? null : row.get("note").toString()));
      }
      assertThat(read).isEqualTo(produced);
      assertThat(tables.table(table).spec().fields()).hasSize(1);
    }
    stack.connect().delete(sink.name());
  }

  @Test
  void schemalessJsonLandsInATableWithInferredTypes(LocalStack stack) {
    String topic = "orders-schemaless";
    stack.createTopic(topic, 2, Map.of());
    ConnectorExample sink =
        IcebergSink.config(
            stack,
            "install-schemaless",
            topic,
            Map.of(
                "tasks.max",
                "1",
                "value.converter.schemas.enable",
                "false",
                "route.orders.partition-by",
                ""));
    runAndCheckTable(stack, sink, topic, false);
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      assertThat(
              tables.table(IcebergSink.tableOf(topic)).schema().findType("created_at").toString())
          .isEqualTo("long");
    }
  }

  /** Waiting for {@code sink}'s table: up to 90 s, stopping at once if the connector failed. */
  private static ConditionFactory awaitTable(LocalStack stack, ConnectorExample sink) {
    return await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(500))
        .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, sink.name()));
  }

  /** The Iceberg sink of {@code topic} reading its values with FastJsonConverter (with schemas). */
  private static ConnectorExample fastJsonSink(
      LocalStack stack, String name, String topic, Map<String, String> overrides) {
    Map<String, String> config = new LinkedHashMap<>(overrides);
    config.put("value.converter", "io.streamhouse.connect.converter.FastJsonConverter");
    config.put("value.converter.schemas.enable", "true");
    return IcebergSink.config(stack, name, topic, config);
  }

  /**
   * Runs {@code sink}, produces 2000 orders to {@code topic} and checks the table holds each once.
   */
  static void runAndCheckTable(
      LocalStack stack, ConnectorExample sink, String topic, boolean schemas) {
    ConnectRestClient rest = stack.connect();
    rest.putConfig(sink.name(), sink.config());
    int tasks = Integer.parseInt(sink.config().get("tasks.max"));
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              rest.requireNotFailed(sink.name());
              assertThat(rest.isRunning(sink.name(), tasks)).isTrue();
            });

    int records = 2_000;
    java.util.Set<Long> ids = new java.util.HashSet<>();
    try (JsonRecordProducer producer = stack.producer()) {
      for (SampleOrders.Order order : SampleOrders.generate(records)) {
        if (schemas) {
          producer.sendWithSchema(topic, null, order.key(), SampleOrders.SCHEMA, order.payload());
        } else {
          producer.send(topic, null, order.key(), order.payload());
        }
        ids.add((Long) order.payload().get("id"));
      }
      producer.flush();
    }
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      awaitTable(stack, sink)
          .untilAsserted(
              () -> {
                assertThat(tables.exists(IcebergSink.tableOf(topic))).isTrue();
                assertThat(
                        tables.watermarks(IcebergSink.tableOf(topic), sink.name()).values().stream()
                            .mapToLong(Long::longValue)
                            .sum())
                    .isEqualTo(records);
              });
      IcebergSink.assertExactlyOnce(stack, tables, sink.name(), topic, ids);
    }
    assertThat(SinkProgress.reportedReceived(stack.worker().logFile(), sink.name()))
        .isGreaterThanOrEqualTo(records);
    rest.delete(sink.name());
  }

  private static List<String> keysWithErrors(JsonNode validation) {
    List<String> keys = new ArrayList<>();
    for (JsonNode config : validation.path("configs")) {
      if (!config.path("value").path("errors").isEmpty()) {
        keys.add(config.path("value").path("name").asText());
      }
    }
    return keys;
  }

  private static List<String> errors(JsonNode validation, String key) {
    List<String> errors = new ArrayList<>();
    for (JsonNode config : validation.path("configs")) {
      if (config.path("value").path("name").asText().equals(key)) {
        config.path("value").path("errors").forEach(e -> errors.add(e.asText()));
      }
    }
    return errors;
  }

  private static String pluginVersionFromArchive() {
    try {
      JsonNode manifest =
          new com.fasterxml.jackson.databind.ObjectMapper()
              .readTree(
                  E2eSettings.pluginPath().resolve("streamhouse-connect/manifest.json").toFile());
      return manifest.path("version").asText();
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read the plugin manifest", e);
    }
  }
}
