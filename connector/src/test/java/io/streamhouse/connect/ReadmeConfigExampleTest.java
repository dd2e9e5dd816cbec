package io.streamhouse.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

/** The README's minimal connector config is a valid connector config, as config-examples/ are. */
class ReadmeConfigExampleTest {
  private static final String SECTION = "## A minimal connector config";

  @Test
  void theMinimalConnectorConfigOfTheReadmeValidatesWithoutErrors() throws Exception {
    String readme =
        Files.readString(Path.of(System.getProperty("streamhouse.repo.root", ".."), "README.md"));
    int section = readme.indexOf("\n" + SECTION + "\n");
    assertThat(section).as("README has a section '%s'", SECTION).isNotNegative();
    int start = readme.indexOf("```json\n", section);
    int next = readme.indexOf("\n## ", section + 1);
    assertThat(start).as("a json block in '%s'", SECTION).isPositive().isLessThan(next);
    int end = readme.indexOf("\n```", start + 1);
    JsonNode root = new ObjectMapper().readTree(readme.substring(start + "```json".length(), end));

    assertThat(root.path("name").asText()).isNotBlank();
    Map<String, String> config =
        new ObjectMapper().convertValue(root.path("config"), new TypeReference<>() {});
    assertThat(config).containsEntry("connector.class", StreamhouseSinkConnector.class.getName());
    config.put("name", root.path("name").asText());
    List<ConfigValue> values = new StreamhouseSinkConnector().validate(config).configValues();
    assertThat(values)
        .allSatisfy(v -> assertThat(v.errorMessages()).as("README config: %s", v.name()).isEmpty());
  }
}
