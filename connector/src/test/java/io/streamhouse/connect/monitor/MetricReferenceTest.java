package io.streamhouse.connect.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README's metric reference lists exactly the metrics the connector publishes. */
class MetricReferenceTest {
  @Test
  void theReadmeMonitoringSectionListsEveryMetricAndNoOther() throws Exception {
    String readme =
        Files.readString(Path.of(System.getProperty("streamhouse.repo.root", ".."), "README.md"));
    int start = readme.indexOf("## Monitoring");
    assertThat(start).as("README has a Monitoring section").isNotNegative();
    int end = readme.indexOf("\n## ", start + 1);
    String section = readme.substring(start, end < 0 ? readme.length() : end);
    List<String> documented = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^\\| `([a-z0-9-]+)` \\|").matcher(section);
    while (m.find()) {
      documented.add(m.group(1));
    }
    List<String> published = new ArrayList<>(LagMetrics.PARTITION_METRICS);
    published.addAll(LagMetrics.TOPIC_METRICS);
    published.addAll(TableMetrics.NAMES);
    published.addAll(TaskMetrics.NAMES);
    published.addAll(HandOverMetrics.NAMES);
    assertThat(documented).containsExactlyInAnyOrderElementsOf(published);
  }
}
