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
      org.assertj.core.api.Assertions.assertThat(stack.connect().serverInfo().path("version").asText())
          .isEqualTo(kafkaVersion);
      String topic = "orders-" + kafkaVersion.replace('.', '-');
      stack.createTopic(topic, 3, Map.of());
      ConnectorExample sink = IcebergSink.config(stack, "compat-" + kafkaVersion.replace('.', '-'), topic,
          Map.of("tasks.max", "2"));
      PluginInstallE2E.runAndCheckTable(stack, sink, topic, true);
    }
  }
}
