package io.streamhouse.e2e;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The same archive on older workers users still run: it must use only public Connect and client
 * APIs. (4.4.0 is covered by every other e2e class.)
 */
class WorkerVersionsE2E {
  @ParameterizedTest(name = "Kafka {0}")
  @ValueSource(strings = {"3.9.1", "4.3.1"})
  void theConnectorLoadsAndRunsOnAnOlderWorker(String kafkaVersion) {
    try (LocalStack stack = E2eSettings.stack("worker-" + kafkaVersion, kafkaVersion).start()) {
      org.assertj.core.api.Assertions.assertThat(
              stack.connect().serverInfo().path("version").asText())
          .isEqualTo(kafkaVersion);
      String topic = "orders-" + kafkaVersion.replace('.', '-');
      stack.createTopic(topic, 3, Map.of());
      ConnectorExample sink =
          IcebergSink.config(
              stack, "compat-" + kafkaVersion.replace('.', '-'), topic, Map.of("tasks.max", "2"));
      PluginInstallE2E.runAndCheckTable(stack, sink, topic, true);
      // Plugin metrics came with Kafka 4.1: an older worker runs the connector without them, said
      // once.
      String log = java.nio.file.Files.readString(stack.worker().logFile());
      org.assertj.core.api.Assertions.assertThat(log.split("has no plugin metrics", -1).length - 1)
          .as("warnings about missing plugin metrics")
          .isEqualTo(kafkaVersion.startsWith("3.") ? 1 : 0);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
