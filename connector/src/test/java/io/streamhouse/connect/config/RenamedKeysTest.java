package io.streamhouse.connect.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.StreamhouseSinkConnector;
import io.streamhouse.connect.schema.EvolutionMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.junit.jupiter.api.Test;

class RenamedKeysTest {
  private static Map<String, String> config(String... pairs) {
    return SinkConfigValidatorTest.config(pairs);
  }

  @Test
  void oldNamesMeanWhatTheNewOnesMeanWithAWarningEach() {
    List<String> warnings = new ArrayList<>();
    Map<String, String> renamed =
        RenamedKeys.apply(
            config(
                "max.open.files", "7",
                "commit.handover.timeout.ms", "1000",
                "lag.check.interval.ms", "2000",
                "control.signing.key", "0123456789abcdef0123",
                "route.r.schema.evolution", "none"),
            (key, message) -> warnings.add(message));
    assertThat(renamed)
        .containsEntry("max-open-files", "7")
        .containsEntry("commit.handover-timeout.ms", "1000")
        .containsEntry("lag.check-interval.ms", "2000")
        .containsEntry("control.signing-key", "0123456789abcdef0123")
        .containsEntry("route.r.schema-evolution", "none")
        .doesNotContainKeys("max.open.files", "route.r.schema.evolution");
    assertThat(warnings)
        .hasSize(5)
        .anySatisfy(
            w ->
                assertThat(w)
                    .isEqualTo(
                        "'max.open.files' is deprecated: it is now 'max-open-files' (same meaning)"));

    StreamhouseSinkConfig parsed =
        new StreamhouseSinkConfig(
            config("max.open.files", "7", "route.r.schema.evolution", "none", "task.id", "0"));
    assertThat(parsed.maxOpenFiles()).isEqualTo(7);
    assertThat(parsed.routes().get(0).schemaEvolution()).isEqualTo(EvolutionMode.NONE);
  }

  @Test
  void whereBothNamesAreSetTheNewOneCountsAndTheOldOneIsReported() {
    List<String> warnings = new ArrayList<>();
    Map<String, String> renamed =
        RenamedKeys.apply(
            config("max.open.files", "7", "max-open-files", "9"),
            (key, message) -> warnings.add(message));
    assertThat(renamed).containsEntry("max-open-files", "9").doesNotContainKey("max.open.files");
    assertThat(warnings).singleElement().asString().contains("set too: ignored");
  }

  @Test
  void validationJudgesAnOldNameAsItsNewOne() {
    Config result =
        new StreamhouseSinkConnector().validate(config("lag.check.interval.ms", "soon"));
    assertThat(result.configValues())
        .filteredOn(v -> v.name().equals("lag.check-interval.ms"))
        .singleElement()
        .satisfies(v -> assertThat(v.errorMessages()).isNotEmpty());
  }

  @Test
  void aSigningKeyGivenUnderItsOldNameReachesTheTasksInsteadOfAGeneratedOne() {
    StreamhouseSinkConnector connector = new StreamhouseSinkConnector();
    connector.start(config("control.signing.key", "0123456789abcdef0123"));
    Map<String, String> task = connector.taskConfigs(1).get(0);
    assertThat(task)
        .containsEntry("control.signing-key", "0123456789abcdef0123")
        .doesNotContainKey("control.signing.key");
    connector.stop();
  }
}
