package io.streamhouse.connect.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ConfigReferenceTest {
  private static final Path COMMITTED = Path.of("src/main/dist/doc/configuration.md");

  @Test
  void committedReferenceMatchesTheConfigDef() throws Exception {
    String generated = ConfigReference.render();
    assertThat(Files.readString(COMMITTED, StandardCharsets.UTF_8))
        .as(
            "%s is stale: regenerate it with ./mvnw -q -pl connector compile exec:java@config-docs",
            COMMITTED)
        .isEqualTo(generated);
  }

  @Test
  void everyPublicKeyIsDocumentedWithItsGroupDefaultAndValidator() {
    String generated = ConfigReference.render();
    assertThat(generated)
        .contains("## " + SinkConfigDef.COMMIT_GROUP)
        .contains("| `commit.interval.ms` | long | `60000` | [100,...] | high |")
        .contains("| `control.topic` | string | `streamhouse-control` | a legal Kafka topic name |")
        .contains("## Catalog <name>", "| `catalog.<name>.credential` | password | null |")
        .contains("## Route <name>", "| `route.<name>.partition-by` | string |")
        .doesNotContain(SinkConfigDef.TASK_ID_CONFIG)
        .doesNotContain(SinkConfigDef.HALT_AT_CONFIG);
  }
}
