package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two workers, records flowing, and at random moments (not at protocol points) a worker is killed
 * like kill -9 and restarted, or frozen past its session timeout and thawed into a zombie: an
 * Iceberg table still holds every record exactly once, a Paimon table still equals the source. The
 * seed is printed; {@code -Dstreamhouse.chaos.seed=N} replays a run's faults and timings.
 */
@ExtendWith(LocalStackExtension.class)
class ChaosE2E {
  private static final int SLICES = 30;
  private static final int FAULTS = 4;

  /** Longer than the harness's 6 s session timeouts (worker group and sink consumers). */
  private static final Duration FROZEN = Duration.ofSeconds(9);

  /**
   * One connector, two routes through the same faults: an append table of orders that must hold
   * every record exactly once, and a keyed table of Debezium changes (updates and deletes of 3,000
   * customers) that must equal the source, one row per key in every commit, with every delete by
   * position: the hand-overs of keyed writers after a kill or a freeze included.
   */
  @Test
  void icebergKillsAndFreezesAtRandomMomentsLoseNothingAndDuplicateNothing(LocalStack stack) {
    int records = 60_000;
    int changes = 24_000;
    String topic = "chaos-orders";
    String keyed = "chaos-customers";
    stack.createTopic(topic, 6, Map.of());
    stack.createTopic(keyed, 6, Map.of());
    Map<String, String> overrides = new HashMap<>();
    overrides.put("tasks.max", "3");
    overrides.put("topics.regex", topic + "|" + keyed);
    overrides.put("routes", "orders,keyed");
    overrides.put("route.keyed.topics", keyed);
    overrides.put("route.keyed.table", "e2e.${topic}");
    overrides.put("route.keyed.auto-create", "true");
    overrides.put("route.keyed.primary-key", "id");
    overrides.put("route.keyed.input", "debezium");
    ConnectorExample sink = IcebergSink.config(stack, "chaos", topic, overrides);
    Set<Long> produced = ConcurrentHashMap.newKeySet();
    SampleCustomers source = new SampleCustomers(9, 3_000, 0.2);
    String faults =
        withFaults(
            stack,
            sink,
            () -> {
              for (int i = 0; i < SLICES; i++) {
                Set<Long> ids = new HashSet<>();
                IcebergFaultsE2E.produce(
                    stack, topic, (long) i * records / SLICES, records / SLICES, ids);
                produced.addAll(ids);
                produceChanges(stack, keyed, source, changes / SLICES);
                pause(Duration.ofMillis(700));
              }
            });

    try (IcebergTables tables = IcebergSink.tables(stack)) {
      await()
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () -> {
                assertThat(tables.exists(IcebergSink.tableOf(topic))).isTrue();
                assertThat(
                        tables.watermarks(IcebergSink.tableOf(topic), sink.name()).values().stream()
                            .mapToLong(Long::longValue)
                            .sum())
                    .as("records committed after %s", faults)
                    .isEqualTo(records);
              });
      IcebergSink.assertExactlyOnce(stack, tables, sink.name(), topic, new HashSet<>(produced));
      System.out.println("ChaosE2E Iceberg: checking the keyed table after " + faults);
      IcebergUpsertE2E.awaitAllCommittedAndCheck(stack, tables, sink.name(), keyed, source.state());
      IcebergKeyedPartitionsE2E.assertEveryCommitHasOneRowPerKey(
          tables.table(IcebergSink.tableOf(keyed)), sink.name());
    }
    stack.connect().delete(sink.name());
  }

  /**
   * {@code count} changes of {@code source} as Debezium envelopes keyed by the row's id (a delete
   * of an id the source never held is not sent: the record key is a string, so a tombstone would
   * name no id).
   */
  private static void produceChanges(
      LocalStack stack, String topic, SampleCustomers source, int count) {
    try (JsonRecordProducer producer = stack.producer()) {
      for (int i = 0; i < count; i++) {
        SampleCustomers.Change change = source.next();
        if (!change.isDelete() || change.before() != null) {
          producer.sendRaw(
              topic, null, SampleCustomers.key(change.id()), SampleCustomers.debeziumValue(change));
        }
      }
      producer.flush();
    }
  }

  @Test
  void paimonKillsAndFreezesAtRandomMomentsLeaveTheSourceState(LocalStack stack) {
    int changes = 30_000;
    String topic = "pchaos";
    stack.createTopic(topic, 6, Map.of());
    ConnectorExample sink =
        PaimonSink.config(
            stack, "pchaos", topic, Map.of("tasks.max", "3", "route.customers.input", "upsert"));
    SampleCustomers source = new SampleCustomers(7, 3_000, 0.2);
    String faults =
        withFaults(
            stack,
            sink,
            () -> {
              for (int i = 0; i < SLICES; i++) {
                PaimonSink.produce(
                    stack, topic, source, changes / SLICES, SampleCustomers::upsertValue);
                pause(Duration.ofMillis(700));
              }
            });
    System.out.println("ChaosE2E Paimon: checking the table after " + faults);
    PaimonFaultsE2E.awaitAllAndCheck(stack, sink.name(), topic, source);
    stack.connect().delete(sink.name());
  }

  /**
   * Starts {@code sink} on two workers, runs {@code producing} in the background and the random
   * faults meanwhile; returns the seed and the faults, for assertion messages.
   */
  private static String withFaults(LocalStack stack, ConnectorExample sink, Runnable producing) {
    long seed = Long.getLong("streamhouse.chaos.seed", System.nanoTime());
    Random random = new Random(seed);
    System.out.println(
        "ChaosE2E "
            + sink.name()
            + " seed "
            + seed
            + " (replay: -Dstreamhouse.chaos.seed="
            + seed
            + ")");
    ConnectWorker second = stack.addWorker();
    try {
      stack.connect().putConfig(sink.name(), sink.config());
      CompletableFuture<Void> produced = CompletableFuture.runAsync(producing);
      List<String> faults = new ArrayList<>();
      for (int i = 0; i < FAULTS; i++) {
        pause(Duration.ofMillis(1_000 + random.nextInt(5_000)));
        ConnectWorker victim = random.nextBoolean() ? stack.worker() : second;
        if (random.nextBoolean()) {
          faults.add("kill -9 " + victim.name());
          victim.process().signal("KILL");
          victim.restart(Duration.ofMinutes(2));
        } else {
          faults.add("freeze " + victim.name());
          victim.process().signal("STOP");
          pause(FROZEN);
          victim.process().signal("CONT");
        }
      }
      produced.join();
      String done = "seed " + seed + " faults " + faults;
      System.out.println("ChaosE2E " + sink.name() + " " + done);
      return done;
    } finally {
      second.close(); // graceful: its tasks move to the first worker, which checks the outcome
    }
  }

  /** The test's fault schedule (random gaps between faults), not a wait for a condition. */
  private static void pause(Duration duration) {
    await().pollDelay(duration).atMost(duration.plusSeconds(5)).until(() -> true);
  }
}
