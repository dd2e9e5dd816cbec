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
      ConnectorExample example = ConnectorExample.load(E2eSettings.repoRoot()
          .resolve("config-examples/quickstart.json"))
          .named("compat-" + kafkaVersion.replace('.', '-'))
          .with(Map.of("topics", topic, "tasks.max", "2", "control.topic", "ctl-compat"));
      PluginInstallE2E.runAndCount(stack, example, topic, true);
    }
  }
}
