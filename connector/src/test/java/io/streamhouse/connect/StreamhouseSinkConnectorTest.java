package io.streamhouse.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StreamhouseSinkConnectorTest {
  @Test
  void eachTaskGetsTheConfigAndItsOwnTaskId() {
    StreamhouseSinkConnector connector = new StreamhouseSinkConnector();
    connector.start(Map.of("name", "c", "topics", "orders", "kafka.bootstrap.servers", "k:9092",
        "catalogs", "local", "catalog.local.uri", "jdbc:sqlite:/tmp/c.db", "catalog.local.warehouse", "/tmp/w",
        "routes", "r", "route.r.topics", "orders"));
    List<Map<String, String>> configs = connector.taskConfigs(3);
    assertThat(configs).extracting(c -> c.get("task.id")).containsExactly("0", "1", "2");
    assertThat(configs).allSatisfy(c -> assertThat(c).containsEntry("topics", "orders"));
    assertThat(connector.taskClass()).isEqualTo(StreamhouseSinkTask.class);
  }

  @Test
  void versionComesFromTheBuild() {
    assertThat(new StreamhouseSinkConnector().version())
        .isEqualTo(new StreamhouseSinkTask().version())
        .matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
  }

  @Test
  void theServiceLoaderManifestNamesTheConnector() throws Exception {
    try (var in = getClass().getResourceAsStream(
        "/META-INF/services/org.apache.kafka.connect.sink.SinkConnector")) {
      assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim())
          .isEqualTo(StreamhouseSinkConnector.class.getName());
    }
  }
}
