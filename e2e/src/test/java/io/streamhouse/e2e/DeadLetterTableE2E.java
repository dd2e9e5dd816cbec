package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamhouse.connect.commit.FaultInjection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The dead-letter table (errors.deadletter.table) on a real worker: bad records of several stages
 * among good ones, the worker killed (kill -9, by fault injection) right after the round's first
 * table commit (the dead-letter table's, which the coordinator commits first), records produced
 * while it is down, a restart. The dead-letter table then holds every bad record exactly once, the
 * good table every good record once, and Connect's dead-letter topic got them too.
 */
@ExtendWith(LocalStackExtension.class)
class DeadLetterTableE2E {
  private static final String TOPIC = "dlt-orders";
  private static final String STRAY = "dlt-stray"; // no route takes it
  private static final String MISSING =
      "dlt-missing"; // its route's table is missing, auto-create off
  private static final String NEVER_CREATED = "e2e.never_created";
  private static final String DEAD_LETTERS = "e2e.dead_letters";

  /** Topic, partition and offset of a record. */
  record At(String topic, int partition, long offset) {}

  @Test
  void everyBadRecordLandsInTheDeadLetterTableExactlyOnceThroughAKill(LocalStack stack)
      throws Exception {
    stack.createTopic(TOPIC, 2, Map.of());
    stack.createTopic(STRAY, 1, Map.of());
    stack.createTopic(MISSING, 1, Map.of());
    Path marker = stack.runDir().resolve("halted-dead-letters");
    ConnectorExample example =
        IcebergSink.config(
            stack,
            "dead-letters",
            "dlt-.*",
            Map.of(
                "tasks.max",
                "2",
                "route.orders.topics.regex",
                TOPIC,
                "routes",
                "orders,missing",
                "route.missing.topics",
                MISSING,
                "route.missing.table",
                NEVER_CREATED,
                "route.missing.auto-create",
                "false",
                "errors.deadletter.table",
                "local." + DEAD_LETTERS,
                "streamhouse.test.halt-at",
                FaultInjection.Point.AFTER_TABLE_COMMIT.name() + ":" + marker));
    Set<Long> good = new HashSet<>();
    Set<At> bad = new HashSet<>();
    haltAfterTheFirstTableCommit(
        stack, example, marker, firstId -> produce(stack, firstId, good, bad));

    try (IcebergTables tables = IcebergSink.tables(stack)) {
      awaitTables(stack, tables, example.name(), DEAD_LETTERS, TOPIC, good, bad);
      List<Map<String, Object>> rows = tables.rows(DEAD_LETTERS);
      assertEveryBadRecordOnce(rows, bad);
      assertThat(rows)
          .extracting(r -> r.get("stage"))
          .contains("schema", "route", "table")
          .allMatch(s -> s.equals("schema") || s.equals("route") || s.equals("table"));
      assertThat(rows)
          .filteredOn(r -> r.get("stage").equals("table"))
          .allSatisfy(
              r -> {
                assertThat(r.get("topic")).isEqualTo(MISSING);
                assertThat(r.get("route")).isEqualTo("missing");
                assertThat(r.get("target_table")).isEqualTo("local:" + NEVER_CREATED);
                assertThat((String) r.get("error_message")).contains("has auto-create off");
              });
      assertThat(tables.exists(NEVER_CREATED)).as("nothing created it").isFalse();
      assertThat(rows)
          .filteredOn(r -> r.get("stage").equals("schema"))
          .allSatisfy(
              r -> {
                assertThat(r.get("target_table")).isEqualTo("local:" + IcebergSink.tableOf(TOPIC));
                assertThat(r.get("route")).isEqualTo("orders");
                assertThat((String) r.get("error_message")).contains("field 'id'");
                assertThat((String) r.get("value")).startsWith("{").contains("\"customer\"");
                assertThat(r.get("key")).asString().startsWith("bad-");
                assertThat(r.get("connector")).isEqualTo("dead-letters");
                assertThat(r.get("failed_at")).isNotNull();
              });
      assertThat(rows)
          .filteredOn(r -> r.get("stage").equals("route"))
          .allSatisfy(
              r -> {
                assertThat(r.get("topic")).isEqualTo(STRAY);
                assertThat(r.get("target_table")).isNull();
                assertThat((String) r.get("error_message")).contains("no route takes topic");
              });
      IcebergSink.assertExactlyOnce(stack, tables, example.name(), TOPIC, good);
      // The restarted worker wrote the rows of what was produced while it was down (4 per
      // partition, 2 strays); a rebalance among its tasks may make one write a row again.
      try (WorkerJmx jmx = new WorkerJmx(stack.worker().process().pid())) {
        String tasks = "kafka.connect:type=plugins,connector=" + example.name() + ",task=*,";
        Map<String, Double> schema =
            jmx.values(tasks + "stage=schema,*", "table", "dead-letter-records-total");
        assertThat(schema).containsOnlyKeys("\"local:e2e.dlt_orders\"");
        assertThat(
                jmx
                    .values(tasks + "stage=schema,*", "task", "dead-letter-records-total")
                    .values()
                    .stream()
                    .mapToDouble(Double::doubleValue)
                    .sum())
            .isGreaterThanOrEqualTo(8);
        assertThat(
                jmx
                    .values(tasks + "stage=route,table=none,*", "task", "dead-letter-records-total")
                    .values()
                    .stream()
                    .mapToDouble(Double::doubleValue)
                    .sum())
            .isGreaterThanOrEqualTo(2);
      }
      assertThat(stack.connect().isRunning(example.name(), 2)).isTrue();
    }

    assertConnectsDeadLetterTopicHas(stack, example, bad);
    stack.connect().delete(example.name());
  }

  /**
   * A worker joins while good and bad records flow, takes tasks, and leaves again: every revoked
   * task hands its dead-letter batches in with the others (the dead-letter table first), and the
   * next owners skip what the tables hold. The dead-letter table ends with every bad record once.
   */
  @Test
  void aWorkerJoiningAndLeavingMidStreamNeitherLosesNorRepeatsADeadLetterRow(LocalStack stack)
      throws Exception {
    String topic = "dlr-orders";
    String stray = "dlr-stray";
    String deadLetters = "e2e.rebalance_dead_letters";
    stack.createTopic(topic, 6, Map.of());
    stack.createTopic(stray, 1, Map.of());
    ConnectorExample example =
        IcebergSink.config(
            stack,
            "dead-letters-rebalance",
            "dlr-.*",
            Map.of(
                "tasks.max",
                "3",
                "route.orders.topics.regex",
                topic,
                "commit.handover-timeout.ms",
                "20000",
                "errors.deadletter.table",
                deadLetters));
    stack.connect().putConfig(example.name(), example.config());
    Set<Long> good = java.util.concurrent.ConcurrentHashMap.newKeySet();
    Set<At> bad = java.util.concurrent.ConcurrentHashMap.newKeySet();
    java.util.concurrent.CompletableFuture<Void> producing =
        java.util.concurrent.CompletableFuture.runAsync(
            () -> {
              try {
                for (int slice = 0; slice < 12; slice++) {
                  produce(stack, topic, stray, 6, slice * 1_000L, good, bad);
                  await().pollDelay(Duration.ofMillis(500)).until(() -> true); // pacing
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    ConnectWorker joiner = stack.addWorker();
    await()
        .atMost(Duration.ofMinutes(1))
        .until(() -> IcebergRebalanceE2E.tasksOn(stack, example.name(), joiner) > 0);
    joiner.close(); // graceful stop: its tasks move back
    producing.join();

    try (IcebergTables tables = IcebergSink.tables(stack)) {
      awaitTables(stack, tables, example.name(), deadLetters, topic, good, bad);
      assertEveryBadRecordOnce(tables.rows(deadLetters), bad);
      IcebergSink.assertExactlyOnce(stack, tables, example.name(), topic, new HashSet<>(good));
    }
    stack.connect().delete(example.name());
  }

  /**
   * Waits until the dead-letter table has at least the bad records and {@code topic}'s table every
   * good one.
   */
  private static void awaitTables(
      LocalStack stack,
      IcebergTables tables,
      String connector,
      String deadLetters,
      String topic,
      Set<Long> good,
      Set<At> bad) {
    await()
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(1))
        .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, connector))
        .untilAsserted(
            () -> {
              assertThat(tables.exists(deadLetters)).isTrue();
              assertThat(tables.rows(deadLetters)).hasSizeGreaterThanOrEqualTo(bad.size());
              assertThat(tables.rows(IcebergSink.tableOf(topic))).hasSize(good.size());
            });
  }

  /** The dead-letter rows are exactly the bad records, each once. */
  static void assertEveryBadRecordOnce(List<Map<String, Object>> rows, Set<At> bad) {
    List<At> landed = new ArrayList<>();
    for (Map<String, Object> row : rows) {
      landed.add(
          new At(
              (String) row.get("topic"), (Integer) row.get("partition"), (Long) row.get("offset")));
    }
    assertThat(landed).as("every bad record once, nothing else").hasSize(bad.size());
    assertThat(new HashSet<>(landed)).isEqualTo(bad);
  }

  /**
   * Per partition of {@link #TOPIC}: 40 good orders with ids from {@code firstId}, a bad one after
   * every eighth (a string id, or no id: schema changes the table refuses), the last one good; and
   * two records of {@link #STRAY}, which no route takes.
   */
  /** Connect's dead-letter topic of {@code example} holds exactly the {@code bad} records. */
  static void assertConnectsDeadLetterTopicHas(
      LocalStack stack, ConnectorExample example, Set<At> bad) {
    List<ConsumerRecord<String, String>> dlq =
        BadInputE2E.readAll(stack, "dlq-" + example.name(), bad.size());
    Set<At> reported = new HashSet<>();
    for (ConsumerRecord<String, String> r : dlq) {
      reported.add(
          new At(
              BadInputE2E.header(r, "__connect.errors.topic"),
              Integer.parseInt(BadInputE2E.header(r, "__connect.errors.partition")),
              Long.parseLong(BadInputE2E.header(r, "__connect.errors.offset"))));
    }
    assertThat(reported).as("Connect's dead-letter topic has them too").isEqualTo(bad);
  }

  /** Produces the records whose ids start at the one given. */
  interface Lot {
    void produce(long firstId) throws Exception;
  }

  /**
   * Produces a first lot (ids from 0), starts {@code example}, which halts its worker right after
   * its first table commit ({@code marker} then exists), waits for the halt, produces a second lot
   * (ids from 1,000) while the worker is down, and restarts the worker.
   */
  static void haltAfterTheFirstTableCommit(
      LocalStack stack, ConnectorExample example, Path marker, Lot lot) throws Exception {
    lot.produce(0);
    stack.connect().putConfig(example.name(), example.config());
    assertThat(stack.worker().process().awaitExit(Duration.ofMinutes(2)))
        .as("the worker halted after the first table commit")
        .isTrue();
    assertThat(marker).exists();
    lot.produce(1_000); // while the worker is down
    stack.worker().restart(Duration.ofMinutes(2));
  }

  private static void produce(LocalStack stack, long firstId, Set<Long> good, Set<At> bad)
      throws Exception {
    produce(stack, TOPIC, STRAY, 2, firstId, good, bad);
    try (JsonRecordProducer producer = stack.producer()) {
      for (SampleOrders.Order o : SampleOrders.generate(firstId + 900, 3)) {
        RecordMetadata sent =
            producer.sendWithSchema(MISSING, 0, o.key(), SampleOrders.SCHEMA, o.payload()).get();
        bad.add(new At(MISSING, 0, sent.offset()));
      }
    }
  }

  /** As above, to {@code partitions} partitions of {@code topic}, and strays to {@code stray}. */
  static void produce(
      LocalStack stack,
      String topic,
      String stray,
      int partitions,
      long firstId,
      Set<Long> good,
      Set<At> bad)
      throws Exception {
    try (JsonRecordProducer producer = stack.producer()) {
      for (int p = 0; p < partitions; p++) {
        long base = firstId + p * 100L;
        int n = 0;
        for (SampleOrders.Order o : SampleOrders.generate(base, 40)) {
          producer.sendWithSchema(topic, p, o.key(), SampleOrders.SCHEMA, o.payload());
          good.add((Long) o.payload().get("id"));
          if (++n % 8 == 0 && n < 40) {
            Map<String, Object> payload = new HashMap<>(o.payload());
            RecordMetadata at;
            if (n % 16 == 0) {
              payload.remove("id");
              at =
                  producer
                      .sendWithSchema(
                          topic, p, "bad-missing-" + n, BadInputE2E.orderWithoutId(), payload)
                      .get();
            } else {
              payload.put("id", "x-" + n);
              at =
                  producer
                      .sendWithSchema(
                          topic,
                          p,
                          "bad-type-" + n,
                          BadInputE2E.orderWithoutId().field("id", "string", false),
                          payload)
                      .get();
            }
            bad.add(new At(topic, p, at.offset()));
          }
        }
      }
      for (SampleOrders.Order o : SampleOrders.generate(firstId + 500, 2)) {
        RecordMetadata at =
            producer.sendWithSchema(stray, 0, o.key(), SampleOrders.SCHEMA, o.payload()).get();
        bad.add(new At(stray, 0, at.offset()));
      }
      producer.flush();
    }
  }
}
