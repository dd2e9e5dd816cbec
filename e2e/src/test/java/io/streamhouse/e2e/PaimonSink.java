package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.paimon.Snapshot;

/** Connector configs writing to the embedded Paimon filesystem catalog of one stack, and checks. */
final class PaimonSink {
  private PaimonSink() {}

  static Path warehouse(LocalStack stack) {
    return IcebergSink.warehouse(stack);
  }

  /** config-examples/paimon-cdc.json for this stack, with its name, topics and overrides. */
  static ConnectorExample config(
      LocalStack stack, String name, String topicsRegex, Map<String, String> overrides) {
    warehouse(stack).toFile().mkdirs();
    ConnectorExample example =
        ConnectorExample.load(
            E2eSettings.repoRoot().resolve("config-examples/paimon-cdc.json"),
            Map.of(
                "KAFKA_BOOTSTRAP_SERVERS",
                stack.bootstrapServers(),
                "WAREHOUSE",
                warehouse(stack).toString()));
    Map<String, String> merged = new HashMap<>(example.config());
    merged.remove("topics");
    merged.remove("route.customers.topics");
    merged.putAll(
        Map.of(
            "topics.regex",
            topicsRegex,
            "route.customers.topics.regex",
            topicsRegex,
            "route.customers.table",
            "e2e.${topic}",
            "control.topic",
            "ctl-" + name,
            "commit.interval.ms",
            "2000",
            "commit.timeout.ms",
            "10000",
            "errors.deadletterqueue.topic.name",
            "dlq-" + name));
    merged.putAll(overrides);
    return new ConnectorExample(name, merged);
  }

  static PaimonTables tables(LocalStack stack) {
    return PaimonTables.filesystem(warehouse(stack).resolve("paimon"));
  }

  static String tableOf(String topic) {
    return IcebergSink.tableOf(topic);
  }

  /** Produces {@code count} changes of {@code source} in {@code shape} (null: nothing to send). */
  static void produce(
      LocalStack stack,
      String topic,
      SampleCustomers source,
      int count,
      Function<SampleCustomers.Change, String> shape) {
    try (JsonRecordProducer producer = stack.producer()) {
      for (int i = 0; i < count; i++) {
        SampleCustomers.Change change = source.next();
        String value = shape.apply(change);
        String key = SampleCustomers.key(change.id());
        if (value != null) {
          producer.sendRaw(topic, null, key, value);
        }
        if (change.isDelete()) {
          producer.sendTombstone(
              topic, null, key); // upsert: the delete; Debezium: its compaction marker
        }
      }
      producer.flush();
    }
  }

  /**
   * {@link #assertMirrors}, given time: on tables with deletion vectors (the example's default) a
   * commit's rows become visible with the compaction snapshot after it, which may follow a job's
   * timeout (its task died) or the coordinator's look at a quiet table (a frozen predecessor
   * committed after it started): about a minute, more on a loaded machine.
   */
  static void awaitMirrors(
      LocalStack stack,
      PaimonTables tables,
      String connector,
      String topic,
      Map<Long, Map<String, Object>> state) {
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofMinutes(4))
        .pollInterval(java.time.Duration.ofSeconds(1))
        .untilAsserted(() -> assertMirrors(stack, tables, connector, topic, state));
  }

  /** The table equals the source state, and the watermarks equal the topic's end offsets. */
  static void assertMirrors(
      LocalStack stack,
      PaimonTables tables,
      String connector,
      String topic,
      Map<Long, Map<String, Object>> state) {
    String table = tableOf(topic);
    Map<Long, Map<String, Object>> rows = new TreeMap<>();
    for (Map<String, Object> row : tables.rows(table)) {
      assertThat(rows.put((Long) row.get("id"), row)).as("one row per id in %s", table).isNull();
    }
    Map<Long, Map<String, Object>> expected = new TreeMap<>();
    state.forEach(
        (id, row) -> {
          Map<String, Object> copy = new HashMap<>(row);
          expected.put(id, copy);
        });
    java.util.Set<Long> missing = new java.util.TreeSet<>(expected.keySet());
    missing.removeAll(rows.keySet());
    java.util.Set<Long> extra = new java.util.TreeSet<>(rows.keySet());
    extra.removeAll(expected.keySet());
    assertThat(missing).as("ids missing from %s (of %d)", table, expected.size()).isEmpty();
    assertThat(extra).as("ids in %s that the source deleted or never had", table).isEmpty();
    assertThat(rows).as("rows of %s", table).isEqualTo(expected);
    assertThat(tables.watermarks(table, connector))
        .as("watermarks of %s", table)
        .isEqualTo(endOffsets(stack, topic));
  }

  static Map<String, Long> endOffsets(LocalStack stack, String topic) {
    Map<String, Long> expected = new HashMap<>();
    try (Admin admin = stack.admin()) {
      for (Map.Entry<TopicPartition, Long> e : SinkProgress.endOffsets(admin, topic).entrySet()) {
        expected.put(e.getKey().topic() + ":" + e.getKey().partition(), e.getValue());
      }
    }
    return expected;
  }

  /** No commit identifier of the connector's commit user was used twice or went backwards. */
  static void assertIdentifiersIncrease(PaimonTables tables, String table, String connector) {
    List<Long> appends = new ArrayList<>();
    List<Long> all = new ArrayList<>();
    for (Snapshot s : tables.snapshots(table)) {
      if (s.commitUser().equals("streamhouse-" + connector)) {
        all.add(s.commitIdentifier());
        if (s.commitKind() == Snapshot.CommitKind.APPEND) {
          appends.add(s.commitIdentifier());
        }
      }
    }
    assertThat(appends)
        .as("identifiers of %s's data commits to %s", connector, table)
        .isNotEmpty()
        .doesNotHaveDuplicates()
        .isSorted();
    assertThat(all).as("identifiers of every snapshot of %s in %s", connector, table).isSorted();
  }

  static long watermarkSum(PaimonTables tables, String table, String connector) {
    return tables.exists(table)
        ? tables.watermarks(table, connector).values().stream().mapToLong(Long::longValue).sum()
        : 0;
  }
}
