package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.errors.DeadLetterRows;
import io.streamhouse.e2e.DeadLetterTableE2E.At;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.data.Field;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataField;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The dead-letter table in a Paimon-only connector (config-examples/paimon-dead-letter-table.json:
 * one Paimon catalog, orders upserted into a primary-key table, the dead-letter table a Paimon
 * append table) on a real worker: bad records of three stages among good ones, the worker killed
 * (kill -9, by fault injection) right after the round's first table commit (the dead-letter
 * table's), records produced while it is down, a restart. Read back with Paimon's reader, the
 * dead-letter table then holds every bad record exactly once, the orders table every good order
 * with its watermarks at the topic's end, and Connect's dead-letter topic got the bad records too.
 */
@ExtendWith(LocalStackExtension.class)
class PaimonDeadLetterTableE2E {
  private static final String TOPIC = "pdlt-orders";
  private static final String STRAY = "pdlt-stray"; // no route takes it
  private static final String MISSING = "pdlt-missing"; // its route's table is never created
  private static final String NEVER_CREATED = "e2e.never_created";
  private static final String DEAD_LETTERS = "e2e.dead_letters";
  private static final String ORDERS = PaimonSink.tableOf(TOPIC);

  @Test
  void everyBadRecordLandsInThePaimonDeadLetterTableExactlyOnceThroughAKill(LocalStack stack)
      throws Exception {
    stack.createTopic(TOPIC, 2, Map.of());
    stack.createTopic(STRAY, 1, Map.of());
    stack.createTopic(MISSING, 1, Map.of());
    Path marker = stack.runDir().resolve("halted-paimon-dead-letters");
    ConnectorExample example =
        config(
            stack,
            "paimon-dead-letters",
            Map.of(
                "streamhouse.test.halt-at",
                FaultInjection.Point.AFTER_TABLE_COMMIT.name() + ":" + marker));
    Set<Long> good = new HashSet<>();
    Set<At> bad = new HashSet<>();
    DeadLetterTableE2E.haltAfterTheFirstTableCommit(
        stack, example, marker, firstId -> produce(stack, firstId, good, bad));

    try (PaimonTables tables = PaimonSink.tables(stack)) {
      long end =
          PaimonSink.endOffsets(stack, TOPIC).values().stream().mapToLong(Long::longValue).sum();
      await()
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofSeconds(1))
          .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, example.name()))
          .untilAsserted(
              () -> {
                assertThat(tables.exists(DEAD_LETTERS)).isTrue();
                assertThat(tables.rows(DEAD_LETTERS)).hasSizeGreaterThanOrEqualTo(bad.size());
                assertThat(PaimonSink.watermarkSum(tables, ORDERS, example.name())).isEqualTo(end);
              });
      FileStoreTable table = tables.table(DEAD_LETTERS);
      assertThat(table.primaryKeys()).as("an append table").isEmpty();
      assertThat(table.rowType().getFields())
          .extracting(DataField::name)
          .containsExactlyElementsOf(
              DeadLetterRows.SCHEMA.fields().stream().map(Field::name).toList());
      List<Map<String, Object>> rows = tables.rows(DEAD_LETTERS);
      DeadLetterTableE2E.assertEveryBadRecordOnce(rows, bad);
      assertRowsSayWhatFailed(rows, example.name());

      List<Long> ids = tables.longs(ORDERS, "id");
      assertThat(ids).as("ids in %s", ORDERS).doesNotHaveDuplicates();
      assertThat(new HashSet<>(ids)).as("ids in %s", ORDERS).isEqualTo(good);
      assertThat(tables.watermarks(ORDERS, example.name()))
          .as("watermarks of %s", ORDERS)
          .isEqualTo(PaimonSink.endOffsets(stack, TOPIC));
      assertThat(tables.exists(NEVER_CREATED)).as("nothing created it").isFalse();
      PaimonSink.assertIdentifiersIncrease(tables, DEAD_LETTERS, example.name());
      assertThat(stack.connect().isRunning(example.name(), 2)).isTrue();
    }

    DeadLetterTableE2E.assertConnectsDeadLetterTopicHas(stack, example, bad);
    stack.connect().delete(example.name());
  }

  /** Each row names its stage, the route and table it was meant for, and the error. */
  private static void assertRowsSayWhatFailed(List<Map<String, Object>> rows, String connector) {
    assertThat(rows)
        .extracting(r -> r.get("stage"))
        .contains("schema", "route", "table")
        .allMatch(s -> Set.of("schema", "value", "route", "table").contains(s));
    assertThat(rows)
        .filteredOn(r -> r.get("topic").equals(TOPIC))
        .allSatisfy(
            r -> {
              assertThat(r.get("stage")).isIn("schema", "value");
              assertThat(r.get("target_table")).isEqualTo("lake:" + ORDERS);
              assertThat(r.get("route")).isEqualTo("orders");
              assertThat((String) r.get("value")).startsWith("{").contains("\"customer\"");
              assertThat(r.get("key")).asString().startsWith("bad-");
              assertThat(r.get("connector")).isEqualTo(connector);
              assertThat(r.get("truncated")).isEqualTo(false);
              assertThat(r.get("failed_at")).isNotNull();
              assertThat(r.get("timestamp")).isNotNull();
            });
    assertThat(rows)
        .filteredOn(r -> r.get("stage").equals("table"))
        .allSatisfy(
            r -> {
              assertThat(r.get("topic")).isEqualTo(MISSING);
              assertThat(r.get("route")).isEqualTo("missing");
              assertThat(r.get("target_table")).isEqualTo("lake:" + NEVER_CREATED);
              assertThat((String) r.get("error_message")).contains("has auto-create off");
            });
    assertThat(rows)
        .filteredOn(r -> r.get("stage").equals("route"))
        .allSatisfy(
            r -> {
              assertThat(r.get("topic")).isEqualTo(STRAY);
              assertThat(r.get("target_table")).isNull();
              assertThat((String) r.get("error_message")).contains("no route takes topic");
            });
  }

  /**
   * config-examples/paimon-dead-letter-table.json for this stack: the orders route takes {@link
   * #TOPIC} into {@link #ORDERS}, a second route takes {@link #MISSING} to a table it may not
   * create, the dead-letter table is {@link #DEAD_LETTERS}; then {@code overrides}.
   */
  private static ConnectorExample config(
      LocalStack stack, String name, Map<String, String> overrides) {
    PaimonSink.warehouse(stack).toFile().mkdirs();
    ConnectorExample example =
        ConnectorExample.load(
            E2eSettings.repoRoot().resolve("config-examples/paimon-dead-letter-table.json"),
            Map.of(
                "KAFKA_BOOTSTRAP_SERVERS",
                stack.bootstrapServers(),
                "WAREHOUSE",
                PaimonSink.warehouse(stack).toString()));
    Map<String, String> config = new HashMap<>(example.config());
    config.remove("topics");
    config.remove("route.orders.topics");
    config.putAll(
        Map.ofEntries(
            Map.entry("topics.regex", "pdlt-.*"),
            Map.entry("routes", "orders,missing"),
            Map.entry("route.orders.topics.regex", TOPIC),
            Map.entry("route.orders.table", ORDERS),
            Map.entry("route.missing.topics", MISSING),
            Map.entry("route.missing.table", NEVER_CREATED),
            Map.entry("route.missing.auto-create", "false"),
            Map.entry("errors.deadletter.table", DEAD_LETTERS),
            Map.entry("control.topic", "ctl-" + name),
            Map.entry("commit.interval.ms", "2000"),
            Map.entry("errors.deadletterqueue.topic.name", "dlq-" + name),
            Map.entry("errors.deadletterqueue.topic.replication.factor", "1"),
            Map.entry("errors.deadletterqueue.context.headers.enable", "true")));
    config.putAll(overrides);
    return new ConnectorExample(name, config);
  }

  /**
   * {@link DeadLetterTableE2E}'s records: per partition of {@link #TOPIC} 40 good orders from
   * {@code firstId} with a bad one (a string id, or none) after every eighth, two of {@link
   * #STRAY}; and three of {@link #MISSING}.
   */
  private static void produce(LocalStack stack, long firstId, Set<Long> good, Set<At> bad)
      throws Exception {
    DeadLetterTableE2E.produce(stack, TOPIC, STRAY, 2, firstId, good, bad);
    try (JsonRecordProducer producer = stack.producer()) {
      for (SampleOrders.Order o : SampleOrders.generate(firstId + 900, 3)) {
        RecordMetadata sent =
            producer.sendWithSchema(MISSING, 0, o.key(), SampleOrders.SCHEMA, o.payload()).get();
        bad.add(new At(MISSING, 0, sent.offset()));
      }
    }
  }
}
