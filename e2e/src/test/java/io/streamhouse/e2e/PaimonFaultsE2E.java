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
