package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Workers join, leave and freeze while records flow; every record still lands exactly once. */
@ExtendWith(LocalStackExtension.class)
class IcebergRebalanceE2E {
  private static final int RECORDS = 40_000;

  @Test
  void aWorkerJoinsMidStreamAndLeavesAgain(LocalStack stack) throws Exception {
    String topic = "rebalance-orders";
    stack.createTopic(topic, 6, Map.of());
    // The hand-overs get generous time (half of it for the coordinator, the rest to commit alone),
    // so that what is asserted is that they hand their work in, not how fast a busy machine does.
    // Every table commit waits 4 s: the next owners find the batches handed in for their
    // partitions undecided, and read on after them (docs/architecture.md, "Reading on after a
    // hand-in").
    ConnectorExample sink =
        IcebergSink.config(
            stack,
            "rebalance",
            topic,
            Map.of(
                "tasks.max",
                "3",
                "commit.handover-timeout.ms",
                "20000",
                "streamhouse.test.halt-at",
                "delay-before-table-commit@0:4000"));
    stack.connect().putConfig(sink.name(), sink.config());
    Set<Long> produced = ConcurrentHashMap.newKeySet();

    CompletableFuture<Void> producing =
        CompletableFuture.runAsync(() -> produceSlowly(stack, topic, produced));
    ConnectWorker joiner = stack.addWorker();
    await().atMost(Duration.ofMinutes(1)).until(() -> tasksOn(stack, sink.name(), joiner) > 0);
    // Its task reads before the worker leaves: a consumer closed while it joins the group takes
    // up to 20 s to close, and no round is committed meanwhile; the test is about the hand-over,
    // not
    // about that stall.
    await()
        .atMost(Duration.ofMinutes(1))
        .until(() -> Files.readString(joiner.logFile()).contains("] Reads ["));
    joiner.close(); // graceful stop: its tasks move back
    // Connect chooses which task moves to the joiner. Task 0 hosts the coordinator: when it moves,
    // its next owner starts after the coordinator, which decides (or the stopping task commits)
    // the hand-in before it: no next owner finds batches undecided (CI at f3c7237).
    Set<String> joinerTasks = new HashSet<>();
    java.util.regex.Matcher assigned =
        java.util.regex.Pattern.compile("\\[rebalance\\|task-(\\d+)\\] Assigned \\[")
            .matcher(Files.readString(joiner.logFile()));
    while (assigned.find()) {
      joinerTasks.add(assigned.group(1));
    }
    producing.join();

    awaitAllAndCheck(stack, sink.name(), topic, produced);
    stack.connect().delete(sink.name());

    // Every revocation handed its work in: the coordinator committed it, or, while task 0 itself
    // was moving or busy, the stopping task did; nothing was dropped to be written again.
    String logs = workerLogs(stack);
    assertThat(count(logs, "\\[rebalance\\|task-\\d+\\] Handed (in|over) [1-9]\\d* batches"))
        .isPositive();
    assertThat(logs)
        .as("no partition was read without a decision on what its last owner handed in")
        .doesNotContainPattern("\\[rebalance\\|task-\\d+\\] .*without a decision");
    assertThat(joinerTasks).as("tasks the joining worker ran").isNotEmpty();
    if (joinerTasks.equals(Set.of("0"))) {
      assertThat(logs)
          .as("the coordinator's task moved: it handed its work in")
          .containsPattern("\\[rebalance\\|task-0\\] Handed (in|over) [1-9]\\d* batches");
    } else {
      assertThat(logs)
          .as("a next owner read on after the undecided batches handed in for its partitions")
          .containsPattern(
              "\\[rebalance\\|task-\\d+\\] Reads [^\\n]*handed in for them and not decided yet");
    }
    assertThat(logs)
        .doesNotContain("handed-over batches were not committed")
        .doesNotContainPattern(
            "\\[rebalance\\|task-\\d+\\] \\d+ offsets of uncommitted work are read again")
        .doesNotContainPattern(
            "\\[rebalance\\|task-\\d+\\] Rewinds .* \\([1-9]\\d* offsets to read again\\)");
  }

  static String workerLogs(LocalStack stack) {
    StringBuilder all = new StringBuilder();
    try (java.util.stream.Stream<java.nio.file.Path> files =
        java.nio.file.Files.walk(stack.runDir(), 2)) {
      for (java.nio.file.Path log :
          files.filter(f -> f.getFileName().toString().equals("connect.log")).toList()) {
        all.append(java.nio.file.Files.readString(log));
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return all.toString();
  }

  static long count(String text, String regex) {
    return java.util.regex.Pattern.compile(regex).matcher(text).results().count();
  }

  /**
   * A coordinator stalls with a full round in hand right before its table commit and its worker
   * freezes past the session timeout; the other worker's new coordinator commits the same records
   * from the re-read offsets, and more on top; then the zombie wakes and commits its stale round.
   * The table is keyed, so the stale round also deletes rows by position (pointing at rows the
   * survivor has superseded since): applying it would duplicate keys and delete live rows. The
   * table still equals the source model, by position deletes only. (An append table's stale round
   * goes through the same watermark check; ChaosE2E freezes append-table workers at random.)
   */
  @Test
  void aFrozenCoordinatorThatWakesUpWithAStaleRoundDuplicatesNothingAndDeletesNoLiveRow(
      LocalStack stack) throws Exception {
    String topic = "zombie-keyed";
    stack.createTopic(topic, 4, Map.of());
    java.nio.file.Path stalled = stack.runDir().resolve("zombie-keyed-stalled");
    ConnectorExample sink =
        IcebergUpsertE2E.keyedConfig(
            stack,
            "zombie-keyed",
            topic,
            Map.of(
                "route.orders.primary-key",
                "id",
                "streamhouse.test.halt-at",
                "stall-BEFORE_TABLE_COMMIT:" + stalled));
    SampleCustomers source = new SampleCustomers(13, 2_000, 0.2);
    PaimonSink.produce(stack, topic, source, 8_000, SampleCustomers::upsertValue);
    long firstRound = endOffsetSum(stack, topic);
    ConnectWorker zombie = freezeTheStalledCoordinator(stack, sink, topic, stalled, firstRound);
    PaimonSink.produce(stack, topic, source, 4_000, SampleCustomers::upsertValue);
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> watermarkSum(tables, topic, sink.name()) > firstRound);
      thaw(zombie);
      PaimonSink.produce(stack, topic, source, 4_000, SampleCustomers::upsertValue);
      IcebergUpsertE2E.awaitAllCommittedAndCheck(stack, tables, sink.name(), topic, source.state());
    }
    assertTheStaleCommitAddedNothing(zombie, "zombie-keyed", "zombie_keyed");
    stack.connect().delete(sink.name());
  }

  /**
   * Starts the connector, whose coordinator stalls before its first table commit; freezes its
   * worker (SIGSTOP) past the session timeout, its round still open; waits until the other worker
   * runs task 0 and its new coordinator committed the table up to {@code offsets}. Returns the
   * frozen worker.
   */
  private static ConnectWorker freezeTheStalledCoordinator(
      LocalStack stack,
      ConnectorExample sink,
      String topic,
      java.nio.file.Path stalled,
      long offsets) {
    ConnectWorker second =
        stack.workers().size() > 1 && stack.workers().get(1).process().isAlive()
            ? stack.workers().get(1)
            : stack.addWorker();
    stack.connect().putConfig(sink.name(), sink.config());
    await().atMost(Duration.ofMinutes(1)).until(() -> java.nio.file.Files.exists(stalled));

    ConnectWorker zombie = task0Worker(stack, sink.name());
    ConnectWorker survivor = zombie == stack.worker() ? second : stack.worker();
    zombie.process().signal("STOP"); // frozen past the session timeout, its round still open
    ConnectRestClient rest = new ConnectRestClient(survivor.restUrl());
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> survivorRunsTask0(rest, sink.name(), survivor));
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      // The new coordinator commits the same records from the re-read offsets.
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> watermarkSum(tables, topic, sink.name()) == offsets);
    }
    return zombie;
  }

  /** Thaws the frozen worker and waits until its coordinator goes on with its stale round. */
  private static void thaw(ConnectWorker zombie) {
    zombie.process().signal("CONT"); // the zombie commits its stale round now
    await()
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () ->
                java.nio.file.Files.readString(zombie.logFile())
                    .contains("goes on after the stall"));
  }

  /**
   * Stopped meanwhile, the coordinator still finishes the round in hand: the stale commit is tried,
   * and the table's watermarks leave nothing of it to add.
   */
  private static void assertTheStaleCommitAddedNothing(
      ConnectWorker zombie, String connector, String table) throws java.io.IOException {
    String zombieLog = java.nio.file.Files.readString(zombie.logFile());
    String afterStall = zombieLog.substring(zombieLog.indexOf("goes on after the stall"));
    assertThat(afterStall)
        .as("the zombie coordinator tried its stale commit and it added nothing")
        .containsPattern(
            "\\["
                + connector
                + "\\|task-\\d+\\] Commit \\d+ of local:e2e."
                + table
                + ": \\d+ batches, 0 records in 0 files|watermarks changed");
  }

  private static long watermarkSum(IcebergTables tables, String topic, String connector) {
    String table = IcebergSink.tableOf(topic);
    return tables.exists(table)
        ? tables.watermarks(table, connector).values().stream().mapToLong(Long::longValue).sum()
        : 0;
  }

  private static long endOffsetSum(LocalStack stack, String topic) {
    return PaimonSink.endOffsets(stack, topic).values().stream().mapToLong(Long::longValue).sum();
  }

  private static void produceSlowly(LocalStack stack, String topic, Set<Long> produced) {
    int slices = 20;
    for (int i = 0; i < slices; i++) {
      Set<Long> ids = new HashSet<>();
      IcebergFaultsE2E.produce(stack, topic, (long) i * RECORDS / slices, RECORDS / slices, ids);
      produced.addAll(ids);
      await().pollDelay(Duration.ofMillis(500)).until(() -> true);
    }
  }

  private static void awaitAllAndCheck(
      LocalStack stack, String connector, String topic, Set<Long> produced) {
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      await()
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () -> {
                assertThat(tables.exists(IcebergSink.tableOf(topic))).isTrue();
                assertThat(
                        tables.watermarks(IcebergSink.tableOf(topic), connector).values().stream()
                            .mapToLong(Long::longValue)
                            .sum())
                    .isEqualTo(produced.size());
              });
      IcebergSink.assertExactlyOnce(stack, tables, connector, topic, new HashSet<>(produced));
    }
  }

  static long tasksOn(LocalStack stack, String connector, ConnectWorker worker) {
    String id = worker.restUrl().substring("http://".length());
    long n = 0;
    for (JsonNode task : stack.connect().status(connector).path("tasks")) {
      if (task.path("worker_id").asText().equals(id)
          && task.path("state").asText().equals("RUNNING")) {
        n++;
      }
    }
    return n;
  }

  private static ConnectWorker task0Worker(LocalStack stack, String connector) {
    for (JsonNode task : stack.connect().status(connector).path("tasks")) {
      if (task.path("id").asInt() == 0 && task.path("state").asText().equals("RUNNING")) {
        for (ConnectWorker w : stack.workers()) {
          if (w.restUrl().endsWith(task.path("worker_id").asText())) {
            return w;
          }
        }
      }
    }
    return null;
  }

  private static boolean survivorRunsTask0(
      ConnectRestClient rest, String connector, ConnectWorker survivor) {
    try {
      for (JsonNode task : rest.status(connector).path("tasks")) {
        if (task.path("id").asInt() == 0
            && task.path("state").asText().equals("RUNNING")
            && survivor.restUrl().endsWith(task.path("worker_id").asText())) {
          return true;
        }
      }
    } catch (IllegalStateException busy) {
      return false;
    }
    return false;
  }
}
