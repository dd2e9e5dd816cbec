package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;

/**
 * Connector configs writing to the embedded JDBC/SQLite Iceberg catalog of one stack, and checks.
 */
final class IcebergSink {
  private IcebergSink() {}

  static Path warehouse(LocalStack stack) {
    return stack.runDir().resolve("warehouse");
  }

  static String catalogUri(LocalStack stack) {
    return "jdbc:sqlite:" + warehouse(stack).resolve("iceberg-catalog.db");
  }

  /** config-examples/quickstart.json for this stack, with its name, topics and overrides. */
  static ConnectorExample config(
      LocalStack stack, String name, String topicsRegex, Map<String, String> overrides) {
    warehouse(stack).toFile().mkdirs();
    Map<String, String> config =
        new HashMap<>(
            Map.of(
                "topics.regex",
                topicsRegex,
                "route.orders.topics.regex",
                topicsRegex,
                "route.orders.table",
                "e2e.${topic}",
                "control.topic",
                "ctl-" + name,
                "commit.interval.ms",
                "2000",
                "commit.timeout.ms",
                "10000",
                "errors.deadletterqueue.topic.name",
                "dlq-" + name));
    config.putAll(overrides);
    ConnectorExample example =
        ConnectorExample.load(
            E2eSettings.repoRoot().resolve("config-examples/quickstart.json"),
            Map.of(
                "KAFKA_BOOTSTRAP_SERVERS",
                stack.bootstrapServers(),
                "WAREHOUSE",
                warehouse(stack).toString()));
    Map<String, String> merged = new HashMap<>(example.config());
    merged.remove("topics");
    merged.remove("route.orders.topics");
    merged.putAll(config);
    return new ConnectorExample(name, merged);
  }

  static IcebergTables tables(LocalStack stack) {
    return IcebergTables.jdbc("local", catalogUri(stack), warehouse(stack).resolve("iceberg"));
  }

  /**
   * The records of {@code topic} the connector's latest snapshot of the topic's table covers (the
   * sum of its watermarks); -1 while the table does not exist.
   */
  static long committedRecords(IcebergTables tables, String topic, String connector) {
    String table = tableOf(topic);
    return tables.exists(table)
        ? tables.watermarks(table, connector).values().stream().mapToLong(Long::longValue).sum()
        : -1;
  }

  /** The table of a topic under {@link #config}'s routing. */
  static String tableOf(String topic) {
    return "e2e." + topic.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
  }

  /**
   * Exactly-once check of one topic: the table holds every produced id once and nothing else, and
   * the latest snapshot's watermarks equal the topic's end offsets.
   */
  static void assertExactlyOnce(
      LocalStack stack,
      IcebergTables tables,
      String connector,
      String topic,
      Set<Long> producedIds) {
    String table = tableOf(topic);
    List<Map<String, Object>> rows = tables.rows(table);
    List<Long> ids = rows.stream().map(r -> (Long) r.get("id")).toList();
    assertThat(new HashSet<>(ids)).as("ids in %s", table).isEqualTo(producedIds);
    assertThat(ids).as("rows of %s", table).hasSize(producedIds.size());
    Map<String, Long> expected = new HashMap<>();
    try (Admin admin = stack.admin()) {
      for (Map.Entry<TopicPartition, Long> e : SinkProgress.endOffsets(admin, topic).entrySet()) {
        expected.put(e.getKey().topic() + ":" + e.getKey().partition(), e.getValue());
      }
    }
    assertThat(tables.watermarks(table, connector))
        .as("watermarks of %s", table)
        .isEqualTo(expected);
  }
}
