package io.streamhouse.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every file in config-examples/ is a valid connector config (the worker checks them too, in e2e),
 * and every placeholder it holds is explained on the getting-started page.
 */
class ConfigExamplesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path ROOT = Path.of(System.getProperty("streamhouse.repo.root", ".."));

  /** {@code ${NAME}} to fill in; {@code ${file:...}} and {@code ${topic}} are not of this form. */
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*)\\}");

  static Stream<Path> examples() throws IOException {
    Path dir = ROOT.resolve("config-examples");
    List<Path> files;
    try (Stream<Path> list = Files.list(dir)) {
      files = list.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertThat(files).as("config-examples/*.json").isNotEmpty();
    return files.stream();
  }

  @ParameterizedTest
  @MethodSource("examples")
  void exampleValidatesWithoutErrors(Path file) throws IOException {
    JsonNode root = JSON.readTree(file.toFile());
    assertThat(root.path("name").asText()).as("name in %s", file).isNotBlank();
    Map<String, String> config = JSON.convertValue(root.path("config"), new TypeReference<>() {});
    assertThat(config).containsEntry("connector.class", StreamhouseSinkConnector.class.getName());
    config.put("name", root.path("name").asText());
    List<ConfigValue> values = new StreamhouseSinkConnector().validate(config).configValues();
    assertThat(values)
        .allSatisfy(
            v ->
                assertThat(v.errorMessages()).as("%s: %s", file.getFileName(), v.name()).isEmpty());
  }

  @ParameterizedTest
  @MethodSource("examples")
  void everyPlaceholderIsExplainedOnTheGettingStartedPage(Path file) throws IOException {
    String page = Files.readString(ROOT.resolve("docs/getting-started.md"));
    String example = Files.readString(file);
    Matcher placeholder = PLACEHOLDER.matcher(example);
    while (placeholder.find()) {
      assertThat(page)
          .as(
              "%s: placeholder %s in docs/getting-started.md",
              file.getFileName(), placeholder.group())
          .contains("| `" + placeholder.group() + "` |");
    }
    if (example.contains("${file:")) {
      assertThat(page).as("%s: ${file:...} explained", file.getFileName()).contains("| `${file:");
    }
  }
}
