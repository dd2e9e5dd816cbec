package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.streamhouse.connect.commit.FaultInjection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Round-atomic commits on a Nessie catalog, the worker JVM dying like kill -9 at each point of the
 * commit protocol (halted by the test-only fault injection, so the point is exact): after a restart
 * both tables of the connector hold every record exactly once, and at every Nessie commit each
 * round is visible in both tables or in neither.
 */
@ExtendWith(LocalStackExtension.class)
class NessieAtomicFaultsE2E {
  private static final int RECORDS = 8_000;
  private static NessieServer nessie;

  @BeforeAll
  static void startNessie() {
    assumeTrue(
        NessieServer.java21().isPresent(),
        "Nessie 0.99 needs a Java 21+ runtime and this machine has none: install one or set"
            + " JAVA21_HOME");
    nessie =
        NessieServer.start(
            E2eSettings.workDir().resolve("nessie-faults-" + System.currentTimeMillis()),
            E2eSettings.workDir().resolve("kafka-dists"),
            E2eSettings.mavenCmd(),
            NessieServer.Store.IN_MEMORY);
  }

  @AfterAll
  static void stopNessie() {
    if (nessie != null) {
      nessie.close();
    }
  }

  @ParameterizedTest(name = "halt at {0}")
  @EnumSource(
      value = FaultInjection.Point.class,
      names = {"BEFORE_PREPARE", "FLUSH", "BEFORE_TABLE_COMMIT", "AFTER_TABLE_COMMIT"})
  void aWorkerKilledMidRoundLeavesEveryRoundWholeAndEveryRecordOnce(
      FaultInjection.Point point, LocalStack stack) throws Exception {
    String name = "afault-" + point.name().toLowerCase(Locale.ROOT).replace('_', '-');
    List<String> topics = List.of(name + "-orders", name + "-lines");
    for (String topic : topics) {
      stack.createTopic(topic, 2, Map.of());
    }
    Path marker = stack.runDir().resolve("halted-" + name);
    Map<String, String> overrides = new HashMap<>(NessieRounds.fileIo(nessie));
    overrides.keySet().removeIf(k -> !k.startsWith("s3.") && !k.equals("io-impl"));
    Map<String, String> config = new HashMap<>();
    overrides.forEach((k, v) -> config.put("catalog.local." + k, v));
    config.put("catalog.local.client.region", S3CompatibleServer.REGION);
    config.put("catalog.local.type", "rest");
    config.put("catalog.local.uri", nessie.icebergUri());
    config.put("catalog.local.warehouse", NessieServer.WAREHOUSE);
    config.put("catalog.local.commit.atomic", "true");
    config.put("tasks.max", "2");
    config.put("streamhouse.test.halt-at", point.name() + ":" + marker);
    ConnectorExample sink = IcebergSink.config(stack, name, name + "-.*", config);

    Map<String, Set<Long>> produced = new HashMap<>();
    topics.forEach(t -> produced.put(t, new HashSet<>()));
    produce(stack, topics, 0, RECORDS / 2, produced);
    stack.connect().putConfig(sink.name(), sink.config());
    produce(stack, topics, RECORDS / 2, RECORDS / 4, produced);
    assertThat(stack.worker().process().awaitExit(Duration.ofMinutes(2)))
        .as("the worker halted at %s", point)
        .isTrue();
    assertThat(marker).exists();
    produce(stack, topics, 3 * RECORDS / 4, RECORDS / 4, produced); // while the worker is down
    stack.worker().restart(Duration.ofMinutes(2));

    try (IcebergTables tables =
            IcebergTables.rest(nessie.icebergUri(), NessieRounds.fileIo(nessie));
        NessieRounds rounds = new NessieRounds(nessie, sink.name())) {
      for (String topic : topics) {
        await(topic + " committed")
            .atMost(Duration.ofMinutes(3))
            .pollInterval(Duration.ofSeconds(1))
            .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, sink.name()))
            .until(() -> IcebergSink.committedRecords(tables, topic, sink.name()) == RECORDS);
        IcebergSink.assertExactlyOnce(stack, tables, sink.name(), topic, produced.get(topic));
      }
      rounds.assertEachRoundVisibleInOneCommit("a halt at " + point);
    }
    stack.connect().delete(sink.name());
  }

  /** {@code count} orders into each of {@code topics}, ids from {@code firstId}. */
  private static void produce(
      LocalStack stack,
      List<String> topics,
      long firstId,
      int count,
      Map<String, Set<Long>> produced) {
    for (String topic : topics) {
      IcebergFaultsE2E.produce(stack, topic, firstId, count, produced.get(topic));
    }
  }
}
