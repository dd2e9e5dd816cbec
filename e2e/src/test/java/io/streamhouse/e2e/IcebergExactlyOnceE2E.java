package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.common.GroupState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Topics land in Iceberg tables, every record once, with the offsets in the snapshots. */
@ExtendWith(LocalStackExtension.class)
class IcebergExactlyOnceE2E {
  static final int RECORDS = Integer.getInteger("streamhouse.e2e.records", 200_000);

  @Test
  void threeTopicsOfFourPartitionsWithTwoTasks(LocalStack stack) throws Exception {
    List<String> topics = List.of("eo-orders-a", "eo-orders-b", "eo-orders-c");
    for (String topic : topics) {
      stack.createTopic(topic, 4, Map.of());
    }
    ConnectorExample sink =
        IcebergSink.config(stack, "eo-three-topics", "eo-orders-.*", Map.of("tasks.max", "2"));
    stack.connect().putConfig(sink.name(), sink.config());

    Map<String, Set<Long>> produced = new HashMap<>();
    try (JsonRecordProducer producer = stack.producer()) {
      int perTopic = RECORDS / topics.size();
      for (String topic : topics) {
        Set<Long> ids = new HashSet<>();
        for (SampleOrders.Order order : SampleOrders.generate(perTopic)) {
          producer.sendWithSchema(topic, null, order.key(), SampleOrders.SCHEMA, order.payload());
          ids.add((Long) order.payload().get("id"));
        }
        produced.put(topic, ids);
      }
      producer.flush();
    }

    try (IcebergTables tables = IcebergSink.tables(stack)) {
      await()
          .atMost(Duration.ofMinutes(4))
          .pollInterval(Duration.ofSeconds(1))
          .failFast("connector failed", () -> failed(stack, sink.name()))
          .untilAsserted(
              () -> {
                for (String topic : topics) {
                  assertThat(tables.exists(IcebergSink.tableOf(topic))).isTrue();
                  assertThat(tables.rows(IcebergSink.tableOf(topic)))
                      .hasSize(produced.get(topic).size());
                }
              });
      for (String topic : topics) {
        IcebergSink.assertExactlyOnce(stack, tables, sink.name(), topic, produced.get(topic));
        assertThat(tables.table(IcebergSink.tableOf(topic)).spec().fields()).hasSize(1);
      }
    }
    stack.connect().delete(sink.name());
  }

  /**
   * Two of three partitions (and so two of three tasks) stay idle while the third gets data: each
   * round must still complete at once. The timeout is 2 minutes, so a round stalled by an idle task
   * would keep the data out of the table far past the 30 s allowed here.
   */
  @Test
  void idlePartitionsDoNotDelayCommits(LocalStack stack) throws Exception {
    String topic = "idle-orders";
    stack.createTopic(topic, 3, Map.of());
    ConnectorExample sink =
        IcebergSink.config(
            stack, "idle", topic, Map.of("tasks.max", "3", "commit.timeout.ms", "120000"));
    stack.connect().putConfig(sink.name(), sink.config());
    await().atMost(Duration.ofMinutes(1)).until(() -> stack.connect().isRunning(sink.name(), 3));
    // Tasks join the consumer group one by one; a rebalance hands the in-flight batch over in a
    // round of its own (no valid-through). Produce once the group is settled with all three.
    await()
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> settledWithMembers(stack, "connect-idle", 3));
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      for (int wave = 1; wave <= 3; wave++) {
        try (JsonRecordProducer producer = stack.producer()) {
          for (SampleOrders.Order o : SampleOrders.generate(wave * 1000L, 100)) {
            producer.sendWithSchema(topic, 0, o.key(), SampleOrders.SCHEMA, o.payload());
          }
          producer.flush();
        }
        long expected = wave * 100L;
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(500))
            .until(
                () ->
                    tables.exists(IcebergSink.tableOf(topic))
                        && tables
                                .watermarks(IcebergSink.tableOf(topic), sink.name())
                                .getOrDefault(topic + ":0", 0L)
                            == expected);
        assertThat(tables.lastSummary(IcebergSink.tableOf(topic)))
            .as("a full round sets valid-through")
            .containsKey("streamhouse.idle.valid-through-ms");
      }
    }
    assertThat(java.nio.file.Files.readString(stack.worker().logFile()))
        .doesNotContainPattern("\\[idle\\|task-\\d+\\] Commit \\d+: no report for");
    stack.connect().delete(sink.name());
  }

  static boolean settledWithMembers(LocalStack stack, String group, int members) throws Exception {
    try (Admin admin = stack.admin()) {
      ConsumerGroupDescription d =
          admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
      return d.groupState() == GroupState.STABLE
          && d.members().size() == members
          && d.members().stream().allMatch(m -> !m.assignment().topicPartitions().isEmpty());
    }
  }

  static boolean failed(LocalStack stack, String connector) {
    try {
      stack.connect().requireNotFailed(connector);
      return false;
    } catch (IllegalStateException e) {
      System.err.println(e.getMessage());
      return true;
    }
  }
}
