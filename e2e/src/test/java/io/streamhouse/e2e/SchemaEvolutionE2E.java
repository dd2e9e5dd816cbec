package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.data.Record;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A producer moves through six schema versions mid-stream, then sends three incompatible records:
 * both formats, and Iceberg tables with a primary key (each version upserting the same keys, then
 * tombstones), follow the compatible changes (every row readable with its values, older rows null
 * in newer columns, the table schema exactly the expected one) and reject the others to the DLQ
 * without touching the table.
 */
@ExtendWith(LocalStackExtension.class)
class SchemaEvolutionE2E {
  private static final int PER_VERSION = 400;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"iceberg", "iceberg-keyed", "paimon"})
  void tablesFollowCompatibleSchemasAndRejectTheOthers(String format, LocalStack stack) {
    String topic = "evolving-" + format;
    stack.createTopic(topic, 2, Map.of());
    String name = "evolve-" + format;
    // Keyed tables (Iceberg with a primary key): every version rewrites the same keys, and a fifth
    // of them are deleted at the end, so upserts and deletes cross every schema change.
    boolean keyed = format.equals("iceberg-keyed");
    ConnectorExample sink =
        keyed
            ? IcebergUpsertE2E.keyedConfig(
                stack, name, topic, Map.of("route.orders.primary-key", "id"))
            : format.equals("iceberg")
                ? IcebergSink.config(
                    stack,
                    name,
                    topic,
                    Map.of(
                        "tasks.max",
                        "2",
                        "key.converter",
                        "org.apache.kafka.connect.json.JsonConverter",
                        "route.orders.partition-by",
                        ""))
                : PaimonSink.config(
                    stack,
                    name,
                    topic,
                    Map.of("tasks.max", "2", "route.customers.input", "upsert"));
    stack.connect().putConfig(sink.name(), sink.config());

    Map<Long, Map<String, Object>> expected = new TreeMap<>();
    try (JsonRecordProducer producer = stack.producer()) {
      for (int version = 1; version <= 6; version++) {
        for (int i = 0; i < PER_VERSION; i++) {
          long id = keyed ? i : version * 10_000L + i;
          producer.sendRaw(
              topic,
              null,
              SampleCustomers.key(id),
              JsonText.of(ConnectJson.envelope(schema(version), payload(version, id))));
          expected.put(id, row(version, id));
        }
        producer.flush(); // versions reach the topic in order, and the tasks see them mid-stream
      }
      if (keyed) {
        for (long id = 0; id < PER_VERSION; id += 5) {
          producer.sendTombstone(topic, null, SampleCustomers.key(id));
          expected.remove(id);
        }
      }
      // Incompatible: score as a string, a record without the required id, id as a string.
      producer.sendRaw(
          topic,
          0,
          SampleCustomers.key(1),
          JsonText.of(
              ConnectJson.envelope(
                  ConnectJson.struct("v7")
                      .field("id", "int64", false)
                      .field("name", "string", true)
                      .field("score", "string", false),
                  Map.of("id", 1, "score", "high"))));
      producer.sendRaw(
          topic,
          0,
          SampleCustomers.key(2),
          JsonText.of(
              ConnectJson.envelope(
                  ConnectJson.struct("v8")
                      .field("name", "string", true)
                      .field("score", "int64", false),
                  Map.of("name", "no id", "score", 2))));
      producer.sendRaw(
          topic,
          0,
          SampleCustomers.key(3),
          JsonText.of(
              ConnectJson.envelope(
                  ConnectJson.struct("v9")
                      .field("id", "string", false)
                      .field("score", "int64", false),
                  Map.of("id", "3", "score", 3))));
      if (keyed) {
        // The producer declares the key optional (the table does not follow) and sends it null.
        Map<String, Object> nullKey = new HashMap<>(payload(6, 4));
        nullKey.put("id", null);
        producer.sendRaw(
            topic,
            0,
            SampleCustomers.key(4),
            JsonText.of(ConnectJson.envelope(schema(6, true), nullKey)));
      }
      for (int i = 0; i < PER_VERSION; i++) { // the stream goes on after them
        long id = 70_000L + i;
        producer.sendRaw(
            topic,
            null,
            SampleCustomers.key(id),
            JsonText.of(ConnectJson.envelope(schema(6), payload(6, id))));
        expected.put(id, row(6, id));
      }
      producer.flush();
    }
    long end =
        PaimonSink.endOffsets(stack, topic).values().stream().mapToLong(Long::longValue).sum();
    String table = IcebergSink.tableOf(topic);
    if (format.startsWith("iceberg")) {
      String schema;
      try (IcebergTables tables = IcebergSink.tables(stack)) {
        awaitWatermarks(
            stack,
            sink.name(),
            () ->
                tables.exists(table)
                    ? tables.watermarks(table, sink.name()).values().stream()
                        .mapToLong(Long::longValue)
                        .sum()
                    : 0,
            end);
        assertRows(tables.rows(table).stream().map(SchemaEvolutionE2E::plain).toList(), expected);
        schema = tables.table(table).schema().asStruct().toString();
        if (keyed) {
          assertThat(tables.table(table).schema().identifierFieldNames())
              .as("the key stays the table's identifier through every change")
              .containsExactly("id");
          IcebergUpsertE2E.assertPositionDeletesOnly(tables.table(table));
        }
      }
      assertThat(schema)
          .isEqualTo(
              "struct<1: id: required long, 2: name: optional string, 3: score: required long, "
                  + "4: ratio: optional double, 5: address: optional struct<6: city: optional string, 8: zip: optional string>, "
                  + "7: email: optional string>");
    } else {
      String schema;
      try (PaimonTables tables = PaimonSink.tables(stack)) {
        awaitWatermarks(
            stack, sink.name(), () -> PaimonSink.watermarkSum(tables, table, sink.name()), end);
        // Deletion vectors: a commit's rows are visible with the compaction snapshot right after
        // it.
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(() -> assertRows(tables.rows(table), expected));
        schema = tables.table(table).rowType().toString();
      }
      assertThat(schema)
          .isEqualTo(
              "ROW<`id` BIGINT NOT NULL, `name` STRING, `score` BIGINT, `ratio` DOUBLE, "
                  + "`address` ROW<`city` STRING, `zip` STRING>, `email` STRING>");
    }

    // A schema change rolls over only its table's writer: no task read anything again for it.
    try (WorkerJmx jmx = new WorkerJmx(stack.worker().process().pid())) {
      Map<String, Double> rewound =
          jmx.values(
              "kafka.connect:type=plugins,connector=" + name + ",task=*",
              "task",
              "task-offsets-rewound-total");
      System.out.printf("SchemaEvolutionE2E %s: offsets read again per task %s%n", format, rewound);
      assertThat(rewound).hasSize(2).allSatisfy((task, offsets) -> assertThat(offsets).isZero());
    }

    // The DLQ is at-least-once: a task that re-reads a partition before its next commit (the first
    // rebalance, a rewind) reports its bad records again. One message per offset:
    Map<Long, String> byOffset = new TreeMap<>();
    for (ConsumerRecord<String, String> r : BadInputE2E.readAll(stack, "dlq-" + name, 3)) {
      String message = BadInputE2E.header(r, "__connect.errors.exception.message");
      byOffset.merge(
          Long.parseLong(BadInputE2E.header(r, "__connect.errors.offset")),
          message,
          (a, b) ->
              a.substring(a.indexOf(": cannot")).equals(b.substring(b.indexOf(": cannot")))
                  ? a
                  : a + " <> " + b);
    }
    List<List<String>> verdicts =
        new java.util.ArrayList<>(
            List.of(
                List.of("field score", "field 'score' is string but column is int64"),
                List.of("field id", "required column 'id'"),
                List.of("field id", "field 'id' is string but column is int64")));
    if (keyed) {
      verdicts.add(List.of("field id", "required column 'id' is missing or null"));
    }
    List<String> messages = List.copyOf(byOffset.values());
    assertThat(messages).hasSize(verdicts.size());
    for (int i = 0; i < verdicts.size(); i++) {
      assertThat(messages.get(i)).contains(verdicts.get(i));
    }
    stack.connect().delete(sink.name());
  }

  private static void assertRows(
      List<Map<String, Object>> rows, Map<Long, Map<String, Object>> expected) {
    Map<Long, Map<String, Object>> actual = new TreeMap<>();
    rows.forEach(r -> actual.put((Long) r.get("id"), r));
    assertThat(rows).as("rows (one per id)").hasSize(actual.size());
    assertThat(actual.keySet()).isEqualTo(expected.keySet());
    assertThat(actual).isEqualTo(expected);
  }

  private static void awaitWatermarks(
      LocalStack stack, String connector, java.util.function.LongSupplier sum, long end) {
    await()
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(1))
        .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, connector))
        .until(() -> sum.getAsLong() == end);
  }

  /**
   * v1 base; v2 adds email; v3 adds address.zip; v4 score int32 -> int64; v5 ratio float -> double;
   * v6 name optional.
   */
  static ConnectJson.StructSchema schema(int version) {
    return schema(version, false);
  }

  /** {@link #schema(int)}, with the id declared optional when {@code optionalId}. */
  static ConnectJson.StructSchema schema(int version, boolean optionalId) {
    ConnectJson.StructSchema address =
        ConnectJson.struct("Address").optional().field("city", "string", true);
    if (version >= 3) {
      address.field("zip", "string", true);
    }
    ConnectJson.StructSchema s =
        ConnectJson.struct("Customer" + version)
            .field("id", "int64", optionalId)
            .field("name", "string", version >= 6)
            .field("score", version >= 4 ? "int64" : "int32", false)
            .field("ratio", version >= 5 ? "double" : "float", true)
            .field("address", address.toMap());
    if (version >= 2) {
      s.field("email", "string", true);
    }
    return s;
  }

  static Map<String, Object> payload(int version, long id) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("id", id);
    p.put("name", version >= 6 && id % 2 == 0 ? null : "n" + id);
    p.put("score", version >= 4 ? 5_000_000_000L + id : (int) id);
    p.put("ratio", version >= 5 ? 0.1 + id : 0.5);
    Map<String, Object> address = new LinkedHashMap<>();
    address.put("city", "c" + id);
    if (version >= 3) {
      address.put("zip", "z" + id);
    }
    p.put("address", address);
    if (version >= 2) {
      p.put("email", "e" + id + "@example.com");
    }
    return p;
  }

  /** The row the table must hold for a payload: newer columns null for older versions. */
  static Map<String, Object> row(int version, long id) {
    Map<String, Object> p = payload(version, id);
    Map<String, Object> r = new HashMap<>();
    r.put("id", id);
    r.put("name", p.get("name"));
    r.put("score", ((Number) p.get("score")).longValue());
    r.put("ratio", version >= 5 ? (Double) p.get("ratio") : (double) 0.5f);
    Map<String, Object> address = new HashMap<>();
    address.put("city", "c" + id);
    address.put("zip", version >= 3 ? "z" + id : null);
    r.put("address", address);
    r.put("email", p.get("email"));
    return r;
  }

  /** An Iceberg row with nested records as maps, like the Paimon reader gives them. */
  static Map<String, Object> plain(Map<String, Object> row) {
    Map<String, Object> plain = new HashMap<>();
    row.forEach((k, v) -> plain.put(k, v instanceof Record r ? plain(fields(r)) : v));
    return plain;
  }

  private static Map<String, Object> fields(Record r) {
    Map<String, Object> values = new HashMap<>();
    r.struct().fields().forEach(f -> values.put(f.name(), r.getField(f.name())));
    return values;
  }
}
