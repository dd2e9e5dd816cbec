package io.streamhouse.connect.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.migration.TakeOverMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The metric reference of docs/monitoring.md lists exactly the metrics the connector publishes. */
class MetricReferenceTest {
  @Test
  void theMetricReferenceOfTheMonitoringPageListsEveryMetricAndNoOther() throws Exception {
    String page =
        Files.readString(
            Path.of(System.getProperty("streamhouse.repo.root", ".."), "docs", "monitoring.md"));
    int start = page.indexOf("\n## Metric reference\n");
    assertThat(start).as("docs/monitoring.md has a Metric reference section").isNotNegative();
    int end = page.indexOf("\n## ", start + 1);
    String section = page.substring(start, end < 0 ? page.length() : end);
    List<String> documented = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^\\| `([a-z0-9-]+)` \\|").matcher(section);
    while (m.find()) {
      documented.add(m.group(1));
    }
    List<String> published = new ArrayList<>(LagMetrics.PARTITION_METRICS);
    published.addAll(LagMetrics.TOPIC_METRICS);
    published.addAll(TableMetrics.NAMES);
    published.addAll(TableMetrics.DEAD_LETTER_NAMES);
    published.addAll(TaskMetrics.NAMES);
    published.addAll(DeadLetterMetrics.NAMES);
    published.addAll(TakeOverMetrics.NAMES);
    published.addAll(TransactionMetrics.NAMES);
    assertThat(documented).containsExactlyInAnyOrderElementsOf(published);
  }
}
