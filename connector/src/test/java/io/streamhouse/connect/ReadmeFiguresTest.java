package io.streamhouse.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README quotes performance figures only in its Performance section, only in tables whose rows
 * are rows of docs/performance.md (so every ratio and time it quotes is the performance page's),
 * and like for like first: both sinks on JsonConverter before any row of our own converter, every
 * row dated and naming its build.
 */
class ReadmeFiguresTest {
  private static final Path ROOT =
      Path.of(System.getProperty("streamhouse.repo.root", "..")).toAbsolutePath().normalize();
  private static final String SECTION = "## Performance";
  private static final Pattern DIGIT = Pattern.compile("\\d");

  /** A figure quoted in prose: a ratio, a rate or "N times as fast". */
  private static final Pattern FIGURE =
      Pattern.compile("\\d(?:[\\d,.]*\\d)?\\s*(?:x\\b|times\\b|records/s|upserts/s|µs)");

  private static final Pattern MEASURED =
      Pattern.compile("\\d{4}-\\d{2}-\\d{2}, build [0-9a-f]{7,}");

  @Test
  void theReadmesFiguresAreThePerformancePagesAndLikeForLikeComesFirst() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
    String performance =
        Files.readString(ROOT.resolve("docs/performance.md"), StandardCharsets.UTF_8);
    assertThat(section(readme)).as("README section '%s'", SECTION).contains("|");
    assertThat(problems(readme, performance)).isEmpty();
  }

  @Test
  void aFigureThatDiffersFromThePerformancePageOrComesOutOfOrderIsReported() {
    String performance =
        String.join(
            "\n",
            "| sink | value converter | tasks | against the Apache sink | measured |",
            "|---|---|---|---|---|",
            "| Apache Iceberg sink | JsonConverter | 1 | 1 | 2026-12-01, build 64c4394 |",
            "| streamhouse | JsonConverter | 1 | 1.28x | 2026-12-01, build 64c4394 |",
            "| streamhouse | FastJsonConverter | 1 | 2.28x | 2026-12-05, build 6f3f396 |",
            "");
    String readme =
        String.join(
            "\n",
            "# Readme",
            "It drains 2.5 times as fast.",
            SECTION,
            "",
            "Like for like first, see 3 runs.",
            "",
            "| sink | value converter | tasks | against the Apache sink | measured |",
            "|---|---|---|---|---|",
            "| streamhouse | FastJsonConverter | 1 | 2.28x | 2026-12-05, build 6f3f396 |",
            "| Apache Iceberg sink | JsonConverter | 1 | 1 | 2026-12-01, build 64c4394 |",
            "| streamhouse | JsonConverter | 1 | 1.30x | 2026-12-01, build 64c4394 |",
            "",
            "## Documentation",
            "");
    assertThat(problems(readme, performance))
        .hasSize(4)
        .anySatisfy(p -> assertThat(p).contains("2.5 times").contains("outside"))
        .anySatisfy(p -> assertThat(p).contains("see 3 runs").contains("outside a table"))
        .anySatisfy(p -> assertThat(p).contains("1.30x").contains("not a row of"))
        .anySatisfy(p -> assertThat(p).contains("FastJsonConverter").contains("before"));
  }

  /** What is wrong with the README's figures, one line each. */
  private static List<String> problems(String readme, String performance) {
    List<String> problems = new ArrayList<>();
    String section = section(readme);
    String outside = readme.replace(section, "");
    FIGURE
        .matcher(outside)
        .results()
        .forEach(m -> problems.add("figure '" + m.group() + "' outside " + SECTION));
    Set<String> performanceLines = Set.copyOf(performance.lines().toList());
    boolean ownConverterSeen = false;
    boolean apacheLikeForLike = false;
    boolean oursLikeForLike = false;
    for (String line : section.lines().toList()) {
      if (!line.startsWith("|")) {
        if (DIGIT.matcher(line).find()) {
          problems.add("a figure outside a table of " + SECTION + ": " + line);
        }
        continue;
      }
      if (!performanceLines.contains(line)) {
        problems.add("not a row of docs/performance.md: " + line);
      }
      List<String> cells = cells(line);
      if (cells.size() < 3
          || !cells.contains("JsonConverter") && !cells.contains("FastJsonConverter")) {
        continue;
      }
      if (!MEASURED.matcher(line).find()) {
        problems.add("a row without its date and build: " + line);
      }
      if (cells.contains("FastJsonConverter")) {
        ownConverterSeen = true;
        if (!apacheLikeForLike || !oursLikeForLike) {
          problems.add("our converter's row before both sinks' JsonConverter rows: " + line);
        }
      } else if (!ownConverterSeen) {
        apacheLikeForLike |= cells.get(0).startsWith("Apache");
        oursLikeForLike |= cells.get(0).equals("streamhouse");
      }
    }
    return problems;
  }

  private static String section(String readme) {
    int start = readme.indexOf("\n" + SECTION + "\n");
    if (start < 0) {
      return "";
    }
    int end = readme.indexOf("\n## ", start + 1);
    return readme.substring(start + 1, end < 0 ? readme.length() : end + 1);
  }

  private static List<String> cells(String row) {
    List<String> cells = new ArrayList<>();
    for (String cell : row.substring(1).split("\\|")) {
      cells.add(cell.strip());
    }
    return cells;
  }
}
