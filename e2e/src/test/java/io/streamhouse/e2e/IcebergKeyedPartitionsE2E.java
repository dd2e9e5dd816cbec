package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.table.iceberg.KeyedTableCheck;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Keyed Iceberg tables whose keys reach the connector on more than one Kafka partition
 * (docs/iceberg-primary-key-tables.md, "Keys on two partitions"), 2 tasks, format v2 and v3 tables:
 *
 * <ul>
 *   <li>topics that grow from 4 to 8 partitions while records flow: the producer's default
 *       partitioner sends most keys' later records to another partition, often another task's. The
 *       consumers see the new partitions within {@code metadata.max.age.ms} (set to 2 s here
 *       through {@code consumer.override.}); every key ends with one row, its latest value;
 *   <li>upserts without a Kafka key, so each key's records land on every partition: every commit
 *       holds one row per key, whichever task wrote it.
 * </ul>
 *
 * Every commit of the connector is checked with {@link KeyedTableCheck}.
 */
@ExtendWith(LocalStackExtension.class)
class IcebergKeyedPartitionsE2E {
  private static final int CHANGES = Integer.getInteger("streamhouse.e2e.grow-changes", 20_000);
  private static final int KEYS = 3_000;
  private static final int SLICES = 6;

  @Test
  void topicsThatGrowFromFourToEightPartitionsKeepEveryKeysLatestRow(LocalStack stack)
      throws Exception {
    List<String> flowing = List.of("grow-v2", "grow-v3");
    String backlog = "backlog-v3";
    Map<String, SampleCustomers> sources =
        Map.of(
            "grow-v2",
            new SampleCustomers(11, KEYS, 0.1),
            "grow-v3",
            new SampleCustomers(12, KEYS, 0.1),
            // No deletes: a tombstone carries no version (it always applies).
            backlog,
            new SampleCustomers(13, KEYS, 0));
    ConnectorExample sink = connector(stack, "grow", "grow-v2", "grow-v3", flowing, false);
    // One task reads the backlog's 8 partitions: the consumer hands it a key's newer records from
    // a new partition before its older ones from the old partition's backlog. Its route orders the
    // changes by version.
    Map<String, String> ordered =
        new HashMap<>(
            connector(stack, "backlog", "backlog-none", backlog, List.of(backlog), true).config());
    ordered.put("tasks.max", "1");
    // Small fetches interleave the partitions as a backlog larger than a fetch does.
    ordered.put("consumer.override.max.partition.fetch.bytes", "16384");
    ConnectorExample backlogSink = new ConnectorExample("backlog", ordered);
    for (String topic : List.of("grow-v2", "grow-v3", backlog)) {
      stack.createTopic(topic, 4, Map.of());
      PaimonSink.produce(
          stack, topic, sources.get(topic), CHANGES / 2, SampleCustomers::upsertValue);
    }
    grow(stack, backlog);
    PaimonSink.produce(
        stack, backlog, sources.get(backlog), CHANGES / 2, SampleCustomers::upsertValue);
    stack.connect().putConfig(backlogSink.name(), backlogSink.config());
    stack.connect().putConfig(sink.name(), sink.config());
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      long grownAt = 0;
      for (int slice = 0; slice < SLICES; slice++) {
        for (String topic : flowing) {
          PaimonSink.produce(
              stack, topic, sources.get(topic), CHANGES / 2 / SLICES, SampleCustomers::upsertValue);
        }
        if (slice == SLICES / 2 - 1) {
          // A key's records before the growth stay on its old partition and are committed before
          // its newer records, now on another partition, are produced.
          for (String topic : flowing) {
            IcebergUpsertE2E.awaitAllCommitted(stack, tables, sink.name(), topic);
            grow(stack, topic);
          }
          grownAt = System.currentTimeMillis();
        }
      }
      for (String topic : List.of("grow-v2", "grow-v3", backlog)) {
        String name = topic.equals(backlog) ? backlogSink.name() : sink.name();
        assertThat(PaimonSink.endOffsets(stack, topic)).as("partitions of %s", topic).hasSize(8);
        IcebergUpsertE2E.awaitAllCommittedAndCheck(
            stack, tables, name, topic, sources.get(topic).state());
        assertEveryCommitHasOneRowPerKey(tables.table(IcebergSink.tableOf(topic)), name);
      }
      for (String topic : flowing) {
        Table table = tables.table(IcebergSink.tableOf(topic));
        System.out.printf(
            "IcebergKeyedPartitionsE2E: %s grew to 8 partitions while records flowed; the first"
                + " commit with a new partition's records came %d ms later%n",
            topic, firstCommitOfNewPartitions(table, sink.name(), grownAt) - grownAt);
      }
      String log = Files.readString(stack.worker().logFile());
      System.out.printf(
          "IcebergKeyedPartitionsE2E: %s: %s%n",
          backlog,
          log.lines()
                  .filter(l -> l.contains("Dropped") && l.contains("older by version"))
                  .map(l -> l.replaceAll(".*Dropped ([0-9]+) change.*", "$1"))
                  .mapToLong(Long::parseLong)
                  .sum()
              + " changes dropped as older than their key's row");
      printRejections(stack);
    } finally {
      stack.connect().delete(sink.name());
      stack.connect().delete(backlogSink.name());
    }
  }

  private static void grow(LocalStack stack, String topic) throws Exception {
    try (Admin admin = stack.admin()) {
      admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(8))).all().get();
    }
  }

  @Test
  void upsertsWithoutAKafkaKeyKeepOneRowPerKeyInEveryCommit(LocalStack stack) throws Exception {
    String v2 = "nokey-v2";
    String v3 = "nokey-v3";
    List<String> topics = List.of(v2, v3);
    Map<String, SampleCustomers> sources =
        Map.of(v2, new SampleCustomers(21, KEYS, 0), v3, new SampleCustomers(23, KEYS, 0));
    ConnectorExample sink = connector(stack, "nokey", v2, v3, topics, false);
    for (String topic : topics) {
      stack.createTopic(topic, 4, Map.of());
    }
    stack.connect().putConfig(sink.name(), sink.config());
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      for (int slice = 0; slice < SLICES; slice++) {
        try (JsonRecordProducer producer = stack.producer()) {
          for (String topic : topics) {
            for (int i = 0; i < CHANGES / 4 / SLICES; i++) {
              SampleCustomers.Change change = sources.get(topic).next();
              producer.sendRaw(topic, null, null, SampleCustomers.upsertValue(change));
            }
          }
          producer.flush();
        }
        for (String topic : topics) {
          IcebergUpsertE2E.awaitAllCommitted(stack, tables, sink.name(), topic);
        }
      }
      for (String topic : topics) {
        Table table = tables.table(IcebergSink.tableOf(topic));
        KeyedTableCheck.Report report = KeyedTableCheck.check(table);
        assertThat(report.oneRowPerKey()).as("%s", report).isTrue();
        assertThat(report.keys())
            .as("keys of %s", table.name())
            .isEqualTo(sources.get(topic).state().size());
        assertEveryCommitHasOneRowPerKey(table, sink.name());
      }
      printRejections(stack);
    } finally {
      stack.connect().delete(sink.name());
    }
  }

  /**
   * Upserts of two topics into a v2 and a v3 keyed table, 2 tasks, new partitions seen in 2 s; the
   * v3 route ordered by version when {@code ordered}.
   */
  private static ConnectorExample connector(
      LocalStack stack, String name, String v2, String v3, List<String> topics, boolean ordered) {
    Map<String, String> overrides = new HashMap<>();
    overrides.put("route.orders.primary-key", "id");
    overrides.put("routes", "orders,v3");
    overrides.put("route.v3.topics", v3);
    overrides.put("route.v3.table", "e2e.${topic}");
    overrides.put("route.v3.auto-create", "true");
    overrides.put("route.v3.primary-key", "id");
    overrides.put("route.v3.format-version", "3");
    if (ordered) {
      overrides.put("route.v3.order-by", "version");
    }
    ConnectorExample sink =
        IcebergUpsertE2E.keyedConfig(stack, name, String.join("|", topics), overrides);
    Map<String, String> config = new HashMap<>(sink.config());
    config.put("route.orders.topics.regex", v2);
    config.put("commit.interval.ms", "1000");
    config.put("consumer.override.metadata.max.age.ms", "2000");
    return new ConnectorExample(sink.name(), config);
  }

  /** When the first commit holding a watermark of partition 4 or above was made. */
  private static long firstCommitOfNewPartitions(Table table, String connector, long after) {
    String key = "streamhouse." + connector + ".watermarks";
    long first = Long.MAX_VALUE;
    for (Snapshot s : table.snapshots()) {
      String watermarks = s.summary() == null ? null : s.summary().get(key);
      if (watermarks != null && s.timestampMillis() >= after && watermarks.matches(".*:[4-7]=.*")) {
        first = Math.min(first, s.timestampMillis());
      }
    }
    return first;
  }

  /** Every commit of {@code connector} the table still has holds one live row per key. */
  static void assertEveryCommitHasOneRowPerKey(Table table, String connector) {
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Snapshot s : table.snapshots()) {
      if (s.summary() == null
          || !s.summary().containsKey("streamhouse." + connector + ".watermarks")) {
        continue;
      }
      KeyedTableCheck.Report report = KeyedTableCheck.check(table, s);
      checked++;
      if (!report.oneRowPerKey()) {
        broken.add(s.snapshotId() + ": " + report);
      }
    }
    assertThat(checked).as("commits of %s", table.name()).isPositive();
    assertThat(broken).as("commits of %s (of %d checked)", table.name(), checked).isEmpty();
  }

  private static void printRejections(LocalStack stack) throws Exception {
    String log = Files.readString(stack.worker().logFile());
    System.out.printf(
        "IcebergKeyedPartitionsE2E: %d keyed batches rejected, %d catch-ups that replaced another"
            + " task's rows (worker log so far)%n",
        log.lines().filter(l -> l.contains("rejected keyed batch")).count(),
        log.lines().filter(l -> l.contains("replaces them")).count());
  }
}
