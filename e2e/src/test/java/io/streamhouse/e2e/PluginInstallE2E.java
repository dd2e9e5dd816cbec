package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
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
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The packaged plugin installed into an unmodified Connect worker, configured over REST. */
@ExtendWith(LocalStackExtension.class)
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
    assertThat(ours).containsExactly("sink " + System.getProperty("streamhouse.plugin.version",
        pluginVersionFromArchive()));
    assertThat(stack.connect().serverInfo().path("version").asText()).isEqualTo(stack.kafkaVersion());
  }

  @Test
  void validateReportsErrorsOnTheKeysConcerned(LocalStack stack) {
    Map<String, String> broken = new LinkedHashMap<>();
    broken.put("connector.class", CONNECTOR_CLASS);
    broken.put("name", "broken");
    broken.put("topics", "orders,ctl");
    broken.put("commit.interval.ms", "often");
    broken.put("commit.timeout.ms", "10");
    broken.put("control.topic", "ctl");
    JsonNode result = stack.connect().validate(broken);

    assertThat(keysWithErrors(result))
        .containsExactlyInAnyOrder("commit.interval.ms", "commit.timeout.ms", "control.topic");
    assertThat(errors(result, "commit.interval.ms")).anySatisfy(e -> assertThat(e).contains("LONG"));
    assertThat(errors(result, "commit.timeout.ms")).singleElement().asString().contains("at least 100");
    assertThat(errors(result, "control.topic")).singleElement().asString()
        .contains("the control topic must not be sunk");
    assertThat(errors(result, "topics")).isEmpty();
  }

  @Test
  void everyConfigExampleIsValidForTheWorker(LocalStack stack) throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(E2eSettings.repoRoot().resolve("config-examples"))) {
      files = list.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertThat(files).isNotEmpty();
    for (Path file : files) {
      ConnectorExample example = ConnectorExample.load(file);
      Map<String, String> config = new LinkedHashMap<>(example.config());
      config.put("name", example.name());
      JsonNode result = stack.connect().validate(config);
      assertThat(result.path("error_count").asInt()).as("%s: %s", file.getFileName(), result).isZero();
    }
  }

  @Test
  void aValidConnectorRunsItsTasksAndReceivesEveryRecord(LocalStack stack) {
    String topic = "orders-install";
    stack.createTopic(topic, 4, Map.of());
    ConnectorExample example = ConnectorExample.load(E2eSettings.repoRoot()
        .resolve("config-examples/quickstart.json"))
        .named("install-with-schemas")
        .with(Map.of("topics", topic, "tasks.max", "2", "control.topic", "ctl-install"));
    runAndCount(stack, example, topic, true);
  }

  @Test
  void schemalessJsonIsReceivedToo(LocalStack stack) {
    String topic = "orders-schemaless";
    stack.createTopic(topic, 2, Map.of());
    ConnectorExample example = ConnectorExample.load(E2eSettings.repoRoot()
        .resolve("config-examples/quickstart.json"))
        .named("install-schemaless")
        .with(Map.of("topics", topic, "tasks.max", "1", "control.topic", "ctl-schemaless",
            "value.converter.schemas.enable", "false"));
    runAndCount(stack, example, topic, false);
  }

  static void runAndCount(LocalStack stack, ConnectorExample example, String topic, boolean schemas) {
    ConnectRestClient rest = stack.connect();
    rest.putConfig(example.name(), example.config());
    int tasks = Integer.parseInt(example.config().get("tasks.max"));
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      rest.requireNotFailed(example.name());
      assertThat(rest.isRunning(example.name(), tasks)).isTrue();
    });

    int records = 2_000;
    try (JsonRecordProducer producer = stack.producer()) {
      for (SampleOrders.Order order : SampleOrders.generate(records)) {
        if (schemas) {
          producer.sendWithSchema(topic, null, order.key(), SampleOrders.SCHEMA, order.payload());
        } else {
          producer.send(topic, null, order.key(), order.payload());
        }
      }
      producer.flush();
    }

    Map<TopicPartition, Long> ends;
    try (Admin admin = stack.admin()) {
      ends = SinkProgress.endOffsets(admin, topic);
    }
    assertThat(ends.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(records);
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
      rest.requireNotFailed(example.name());
      assertThat(SinkProgress.reportedReceived(stack.worker().logFile(), example.name()))
          .isEqualTo(records);
      assertThat(SinkProgress.committedOffsets(rest, example.name())).isEqualTo(ends);
    });
    rest.delete(example.name());
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
      JsonNode manifest = new com.fasterxml.jackson.databind.ObjectMapper()
          .readTree(E2eSettings.pluginPath().resolve("streamhouse-connect/manifest.json").toFile());
      return manifest.path("version").asText();
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read the plugin manifest", e);
    }
  }
}
