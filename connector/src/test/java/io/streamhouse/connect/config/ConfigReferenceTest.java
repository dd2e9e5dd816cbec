package io.streamhouse.connect.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ConfigReferenceTest {
  private static final Path PAGE =
      Path.of(System.getProperty("streamhouse.repo.root", ".."), "docs", "configuration.md");

  @Test
  void docsConfigurationIsTheGeneratedReferenceFollowedByTheHandWrittenRules() throws Exception {
    String page = Files.readString(PAGE, StandardCharsets.UTF_8);
    assertThat(page)
        .as(
            "%s is stale: regenerate it with ./mvnw -q -pl connector compile exec:java@config-docs",
            PAGE)
        .isEqualTo(ConfigReference.page(page))
        .startsWith(ConfigReference.render());
    String handWritten =
        page.substring(
            page.indexOf(ConfigReference.END_OF_GENERATED)
                + ConfigReference.END_OF_GENERATED.length());
    assertThat(handWritten).contains("\n## Validation\n", "\n## Key style\n");
  }

  @Test
  void regeneratingKeepsTheHandWrittenPartAndReplacesTheGeneratedOne() {
    String stale =
        "# Configuration reference\n\nan old key table\n"
            + ConfigReference.END_OF_GENERATED
            + "\n\n## Key style\n\nwritten by hand\n";
    assertThat(ConfigReference.page(stale))
        .startsWith(ConfigReference.render())
        .doesNotContain("an old key table")
        .endsWith(ConfigReference.END_OF_GENERATED + "\n\n## Key style\n\nwritten by hand\n");
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
