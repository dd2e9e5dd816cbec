package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A keyed topic of upserts and tombstones lands in a Paimon primary-key table that equals the
 * model.
 */
@ExtendWith(LocalStackExtension.class)
class PaimonUpsertE2E {
  private static final int RECORDS = 1_000_000;
  private static final int KEYS = 100_000;

  @Test
  void aMillionUpsertsOverAHundredThousandKeysWithDeletesEqualTheModel(LocalStack stack) {
    String topic = "upserts";
    stack.createTopic(topic, 4, Map.of());
    SampleCustomers source = new SampleCustomers(7, KEYS, 0.2);
    PaimonSink.produce(stack, topic, source, RECORDS, SampleCustomers::upsertValue);
    ConnectorExample sink =
        PaimonSink.config(
            stack, "upserts", topic, Map.of("tasks.max", "2", "route.customers.input", "upsert"));
    stack.connect().putConfig(sink.name(), sink.config());

    long end =
        PaimonSink.endOffsets(stack, topic).values().stream().mapToLong(Long::longValue).sum();
    assertThat(end)
        .as("records in the topic (upserts and tombstones)")
        .isGreaterThanOrEqualTo(RECORDS);
    try (PaimonTables tables = PaimonSink.tables(stack)) {
      await()
          .atMost(Duration.ofMinutes(6))
          .pollInterval(Duration.ofSeconds(2))
          .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, sink.name()))
          .until(
              () -> PaimonSink.watermarkSum(tables, PaimonSink.tableOf(topic), sink.name()) == end);
      PaimonSink.awaitMirrors(stack, tables, sink.name(), topic, source.state());
      PaimonSink.assertIdentifiersIncrease(tables, PaimonSink.tableOf(topic), sink.name());
    }
    stack.connect().delete(sink.name());
    // Both tasks compacted: the coordinator handed the buckets out and committed what each task
    // merged.
    String logs = IcebergRebalanceE2E.workerLogs(stack);
    for (int task = 0; task < 2; task++) {
      assertThat(
              IcebergRebalanceE2E.count(
                  logs,
                  "\\[upserts\\|task-\\d+\\] Committed the compaction of \\d+ buckets of \\S+ by task "
                      + task
                      + " "))
          .as("compactions by task %d", task)
          .isPositive();
    }
  }
}
