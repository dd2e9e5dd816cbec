package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A task that is alive but slower than {@code commit.timeout.ms} on every round (the test-only
 * fault injection makes task 1 wait three times the timeout each time it closes its files) never
 * stops the connector: every round commits what arrived, task 1's batches go into the round after
 * the one they were too late for, every record lands once, and the slowness shows in a metric and a
 * log line.
 */
@ExtendWith(LocalStackExtension.class)
class SlowTaskE2E {
  private static final int RECORDS = 20_000;
  private static final long TIMEOUT_MS = 3_000;

  @Test
  void aTaskSlowerThanTheCommitTimeoutEveryRoundStillGetsItsBatchesCommitted(LocalStack stack)
      throws Exception {
    String topic = "slow-task";
    String name = "slow-task";
    stack.createTopic(topic, 4, Map.of());
    ConnectorExample sink =
        IcebergSink.config(
            stack,
            name,
            topic,
            Map.of(
                "tasks.max",
                "2",
                "commit.interval.ms",
                "1000",
                "commit.timeout.ms",
                Long.toString(TIMEOUT_MS),
                "streamhouse.test.halt-at",
                "delay-FLUSH@1:" + 3 * TIMEOUT_MS));
    Set<Long> produced = new HashSet<>();
    IcebergFaultsE2E.produce(stack, topic, 0, RECORDS / 2, produced);
    stack.connect().putConfig(sink.name(), sink.config());
    IcebergFaultsE2E.produce(stack, topic, RECORDS / 2, RECORDS / 2, produced);

    try (IcebergTables tables = IcebergSink.tables(stack)) {
      await()
          .atMost(Duration.ofMinutes(4))
          .pollInterval(Duration.ofSeconds(1))
          .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, name))
          .untilAsserted(
              () -> {
                assertThat(tables.exists(IcebergSink.tableOf(topic))).isTrue();
                assertThat(tables.rows(IcebergSink.tableOf(topic)))
                    .hasSizeGreaterThanOrEqualTo(RECORDS);
              });
      IcebergSink.assertExactlyOnce(stack, tables, name, topic, produced);
    }
    try (WorkerJmx jmx = new WorkerJmx(stack.worker().process().pid())) {
      String tasks = "kafka.connect:type=plugins,connector=" + name + ",task=*";
      assertThat(jmx.values(tasks, "task", "task-late-commit-answers-total"))
          .as("task 1 answered later than the commit timeout")
          .hasEntrySatisfying("1", late -> assertThat(late).isPositive());
      assertThat(jmx.values(tasks, "task", "task-commit-answer-ms"))
          .hasEntrySatisfying("1", ms -> assertThat(ms).isGreaterThan(TIMEOUT_MS));
    }
    String log = Files.readString(stack.worker().logFile());
    assertThat(log)
        .containsPattern(
            "\\["
                + name
                + "\\|task-1\\] Answered commit \\d+ in \\d+ ms, longer than commit.timeout.ms \\("
                + TIMEOUT_MS
                + " ms\\)")
        .containsPattern(
            "\\[" + name + "\\|task-0\\] Commit \\d+: no report for .*; committing what arrived");
    stack.connect().delete(name);
  }
}
