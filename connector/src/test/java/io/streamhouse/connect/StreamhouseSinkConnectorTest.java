package io.streamhouse.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StreamhouseSinkConnectorTest {
  @Test
  void eachTaskGetsTheConfigAndItsOwnTaskId() {
    StreamhouseSinkConnector connector = new StreamhouseSinkConnector();
    connector.start(
        Map.of(
            "name",
            "c",
            "topics",
            "orders",
            "kafka.bootstrap.servers",
            "k:9092",
            "catalogs",
            "local",
            "catalog.local.uri",
            "jdbc:sqlite:/tmp/c.db",
            "catalog.local.warehouse",
            "/tmp/w",
            "routes",
            "r",
            "route.r.topics",
            "orders"));
    List<Map<String, String>> configs = connector.taskConfigs(3);
    assertThat(configs).extracting(c -> c.get("task.id")).containsExactly("0", "1", "2");
    assertThat(configs).allSatisfy(c -> assertThat(c).containsEntry("topics", "orders"));
    assertThat(connector.taskClass()).isEqualTo(StreamhouseSinkTask.class);
  }

  private static final Map<String, String> BASE =
      Map.of(
          "name",
          "c",
          "topics",
          "orders",
          "kafka.bootstrap.servers",
          "k:9092",
          "catalogs",
          "local",
          "catalog.local.uri",
          "jdbc:sqlite:/tmp/c.db",
          "catalog.local.warehouse",
          "/tmp/w",
          "routes",
          "r",
          "route.r.topics",
          "orders");

  @Test
  void withoutAKeyOfTheUsersEveryInstanceDerivesTheSameKeyFromTheSameConfig() {
    StreamhouseSinkConnector connector = new StreamhouseSinkConnector();
    connector.start(BASE);
    List<Map<String, String>> first = connector.taskConfigs(2);
    String key = first.get(0).get("control.signing-key");
    assertThat(key).hasSize(43); // 256 bits, base64url
    assertThat(first.get(1)).containsEntry("control.signing-key", key);
    connector.stop(); // a pause and a resume: Connect stops and starts the same instance
    connector.start(BASE);
    assertThat(connector.taskConfigs(2))
        .as("same task configs, so no task restart")
        .isEqualTo(first);
    StreamhouseSinkConnector elsewhere =
        new StreamhouseSinkConnector(); // started anew on another worker, or after a restart
    elsewhere.start(BASE);
    assertThat(elsewhere.taskConfigs(2))
        .as("same task configs, so Connect does not restart the tasks it just started")
        .isEqualTo(first);

    Map<String, String> changed = new HashMap<>(BASE);
    changed.put("catalog.local.warehouse", "/tmp/w2");
    StreamhouseSinkConnector reconfigured = new StreamhouseSinkConnector();
    reconfigured.start(changed);
    assertThat(reconfigured.taskConfigs(1).get(0).get("control.signing-key")).isNotEqualTo(key);
    Map<String, String> renamed = new HashMap<>(BASE);
    renamed.put("name", "another");
    StreamhouseSinkConnector other = new StreamhouseSinkConnector();
    other.start(renamed);
    assertThat(other.taskConfigs(1).get(0).get("control.signing-key"))
        .as("another connector with the same settings signs under another key")
        .isNotEqualTo(key);
  }

  @Test
  void theUsersKeyIsHandedOnAsItIsAndAShortOneIsRefused() {
    Map<String, String> props = new java.util.HashMap<>(BASE);
    props.put("control.signing-key", "the-users-own-key-0123");
    StreamhouseSinkConnector connector = new StreamhouseSinkConnector();
    connector.start(props);
    assertThat(connector.taskConfigs(2))
        .allSatisfy(
            c -> assertThat(c).containsEntry("control.signing-key", "the-users-own-key-0123"));
    props.put("control.signing-key", "short-secret");
    assertThat(connector.validate(props).configValues())
        .filteredOn(v -> v.name().equals("control.signing-key"))
        .singleElement()
        .satisfies(
            v ->
                assertThat(v.errorMessages())
                    .singleElement()
                    .asString()
                    .contains("has 12 characters")
                    .doesNotContain("short-secret"));
  }

  @Test
  void versionComesFromTheBuild() {
    assertThat(new StreamhouseSinkConnector().version())
        .isEqualTo(new StreamhouseSinkTask().version())
        .matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
  }

  @Test
  void theServiceLoaderManifestNamesTheConnector() throws Exception {
    try (var in =
        getClass()
            .getResourceAsStream(
                "/META-INF/services/org.apache.kafka.connect.sink.SinkConnector")) {
      assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim())
          .isEqualTo(StreamhouseSinkConnector.class.getName());
    }
  }
}
