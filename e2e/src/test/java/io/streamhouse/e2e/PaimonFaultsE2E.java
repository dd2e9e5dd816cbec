package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamhouse.connect.commit.FaultInjection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Paimon tables through kill -9 at each point of the commit protocol and through rebalances: the
 * table still equals the model, and no commit identifier of the connector was reused.
 */
@ExtendWith(LocalStackExtension.class)
class PaimonFaultsE2E {
  private static final int CHANGES = 20_000;
  private static final int KEYS = 2_000;
  private static final String COOPERATIVE =
      "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";

  @ParameterizedTest(name = "halt at {0}")
  @EnumSource(
      value = FaultInjection.Point.class,
      names = {"AFTER_EXPIRY_COMMIT", "BEFORE_REWRITE_COMMIT"}, // Paimon maintains itself
      mode = EnumSource.Mode.EXCLUDE)
  void aWorkerKilledMidCommitLeavesTheModel(FaultInjection.Point point, LocalStack stack) {
    String name = "pfault-" + point.name().toLowerCase(Locale.ROOT).replace('_', '-');
    String topic = name;
    stack.createTopic(topic, 4, Map.of());
    Path marker = stack.runDir().resolve("halted-" + name);
    ConnectorExample sink =
        PaimonSink.config(
            stack,
            name,
            topic,
            Map.of(
                "tasks.max",
                "2",
                "route.customers.input",
                "upsert",
                "streamhouse.test.halt-at",
                point.name() + ":" + marker));
    SampleCustomers source = new SampleCustomers(point.ordinal(), KEYS, 0.2);
    PaimonSink.produce(stack, topic, source, CHANGES / 2, SampleCustomers::upsertValue);
    stack.connect().putConfig(sink.name(), sink.config());

    ManagedProcess worker = stack.worker().process();
    assertThat(worker.awaitExit(Duration.ofMinutes(2)))
        .as("the worker halted at %s", point)
        .isTrue();
    assertThat(marker).exists();
    PaimonSink.produce(
        stack, topic, source, CHANGES / 2, SampleCustomers::upsertValue); // while it is down
    stack.worker().restart(Duration.ofMinutes(2));

    awaitAllAndCheck(stack, sink.name(), topic, source);
    stack.connect().delete(sink.name());
  }

  /**
   * With the cooperative assignor that docs/operations.md recommends (a task keeps the partitions
   * that do not move, so it neither hands over nor stops reading in a rebalance): partitions move
   * in two steps, revoked ones first. (config-examples/paimon-cdc.json sets it too, so every Paimon
   * e2e test runs with it; the eager default's rebalances run in the Iceberg ones, ChaosE2E's and
   * IcebergRebalanceE2E.)
   */
  @Test
  void aWorkerJoinsMidStreamAndLeavesAgainWithCooperativeRebalancing(LocalStack stack) {
    String topic = "prebalance";
    stack.createTopic(topic, 6, Map.of());
    ConnectorExample sink =
        PaimonSink.config(
            stack,
            "prebalance",
            topic,
            Map.of(
                "tasks.max",
                "3",
                "route.customers.input",
                "upsert",
                "consumer.override.partition.assignment.strategy",
                COOPERATIVE));
    stack.connect().putConfig(sink.name(), sink.config());
    SampleCustomers source = new SampleCustomers(99, KEYS, 0.2);

    CompletableFuture<Void> producing =
        CompletableFuture.runAsync(
            () -> {
              for (int slice = 0; slice < 20; slice++) {
                PaimonSink.produce(
                    stack, topic, source, CHANGES / 20, SampleCustomers::upsertValue);
                await().pollDelay(Duration.ofMillis(500)).until(() -> true);
              }
            });
    ConnectWorker joiner = stack.addWorker();
    await()
        .atMost(Duration.ofMinutes(1))
        .until(() -> IcebergRebalanceE2E.tasksOn(stack, sink.name(), joiner) > 0);
    joiner.close(); // graceful stop: its tasks move back
    producing.join();

    awaitAllAndCheck(stack, sink.name(), topic, source);
    stack.connect().delete(sink.name());
    assertThat(IcebergRebalanceE2E.workerLogs(stack))
        .as("the sink's consumers used the cooperative assignor")
        .contains("partition.assignment.strategy = [" + COOPERATIVE + "]");
  }

  /**
   * Reading on after a hand-in (docs/architecture.md): task 1 is restarted through Connect's REST
   * API three times while records flow and every round's commit takes 5 s (the coordinator, busy
   * committing, asks the stopping task for its batches late or not at all). Each time the stopping
   * task leaves without waiting for the decision on its handed-in batches, once a round took them
   * or after a second; its next instance reads on after them before the decision, offers them in
   * its own rounds, and numbers each key above their rows. The table still equals the model (every
   * key's last change wins) and no commit identifier was reused.
   */
  @Test
  void aRestartedTaskLeavesItsBatchesToTheirRoundAndTheNextOwnerReadsOnAfterThem(LocalStack stack) {
    String topic = "prestart";
    stack.createTopic(topic, 4, Map.of());
    ConnectorExample sink =
        PaimonSink.config(
            stack,
            "prestart",
            topic,
            Map.of(
                "tasks.max",
                "2",
                "route.customers.input",
                "upsert",
                "commit.interval.ms",
                "6000",
                // Eager: each instance of task 1 is given the partitions of the one before.
                "consumer.override.partition.assignment.strategy",
                "org.apache.kafka.clients.consumer.RangeAssignor",
                "streamhouse.test.halt-at",
                "delay-before-table-commit@0:5000"));
    stack.connect().putConfig(sink.name(), sink.config());
    SampleCustomers source = new SampleCustomers(7, KEYS, 0.2);
    CompletableFuture<Void> producing =
        CompletableFuture.runAsync(
            () -> {
              for (int slice = 0; slice < 40; slice++) {
                PaimonSink.produce(
                    stack, topic, source, CHANGES / 40, SampleCustomers::upsertValue);
                await().pollDelay(Duration.ofMillis(500)).until(() -> true);
              }
            });

    for (int restart = 1; restart <= 3; restart++) {
      // Restarted once its instance answered a round: it runs and writes what keeps arriving.
      int answered = count(IcebergRebalanceE2E.workerLogs(stack), "|task-1] Answered commit");
      await()
          .atMost(Duration.ofMinutes(1))
          .until(
              () ->
                  count(IcebergRebalanceE2E.workerLogs(stack), "|task-1] Answered commit")
                      > answered);
      int reads = count(IcebergRebalanceE2E.workerLogs(stack), "|task-1] Reads ");
      stack.connect().restartTask(sink.name(), 1);
      await()
          .atMost(Duration.ofMinutes(1))
          .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, sink.name()))
          .until(() -> count(IcebergRebalanceE2E.workerLogs(stack), "|task-1] Reads ") > reads);
    }
    producing.join();

    awaitAllAndCheck(stack, sink.name(), topic, source);
    stack.connect().delete(sink.name());
    String logs = IcebergRebalanceE2E.workerLogs(stack);
    assertThat(logs)
        .as("a stopping task left before its batches were decided")
        .containsPattern("Offered its \\d+ handed-in batches in a round|No round took its");
    assertThat(logs)
        .as("a restarted task read on after the batches its last instance handed in")
        .containsPattern("\\|task-1\\] Reads [^\\n]*handed in for them and not decided yet");
  }

  private static int count(String text, String part) {
    int n = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      n++;
    }
    return n;
  }

  static void awaitAllAndCheck(
      LocalStack stack, String connector, String topic, SampleCustomers source) {
    long end =
        PaimonSink.endOffsets(stack, topic).values().stream().mapToLong(Long::longValue).sum();
    try (PaimonTables tables = PaimonSink.tables(stack)) {
      await()
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofSeconds(1))
          .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, connector))
          .until(
              () -> PaimonSink.watermarkSum(tables, PaimonSink.tableOf(topic), connector) == end);
      PaimonSink.awaitMirrors(stack, tables, connector, topic, source.state());
      PaimonSink.assertIdentifiersIncrease(tables, PaimonSink.tableOf(topic), connector);
    }
  }
}
