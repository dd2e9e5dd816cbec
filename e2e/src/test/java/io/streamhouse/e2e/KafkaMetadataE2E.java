package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import org.apache.iceberg.data.Record;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kafka metadata columns through a real worker, both formats: a table written without them gains
 * the column through schema evolution once the route asks for it; the rows written after carry
 * their record's topic, partition, offset (equal to the offsets the producer was told), Kafka
 * timestamp, key and headers as produced, the rows before carry none; every record lands once.
 */
@ExtendWith(LocalStackExtension.class)
class KafkaMetadataE2E {
  private static final int PER_PHASE = 300;
  private static final long T0 = 1_767_225_600_000L;
  private static final String ALL = "topic,partition,offset,timestamp,key,headers";

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"iceberg", "paimon"})
  void anExistingTableGainsTheMetadataColumnAndNewRowsCarryTheirRecordsMetadata(
      String format, LocalStack stack) throws Exception {
    boolean iceberg = format.equals("iceberg");
    String topic = "metadata-" + format;
    stack.createTopic(topic, 2, Map.of());
    String name = "meta-" + format;
    String route = iceberg ? "orders" : "customers";
    Map<String, String> overrides = new HashMap<>(Map.of("tasks.max", "2"));
    overrides.put(
        iceberg ? "route.orders.partition-by" : "route.customers.input", iceberg ? "" : "upsert");
    ConnectorExample plain =
        iceberg
            ? IcebergSink.config(stack, name, topic, overrides)
            : PaimonSink.config(stack, name, topic, overrides);
    stack.connect().putConfig(plain.name(), plain.config());

    String table = IcebergSink.tableOf(topic);
    LongSupplier watermarks;
    IcebergTables icebergTables = iceberg ? IcebergSink.tables(stack) : null;
    PaimonTables paimonTables = iceberg ? null : PaimonSink.tables(stack);
    try {
      watermarks =
          iceberg
              ? () ->
                  icebergTables.exists(table)
                      ? icebergTables.watermarks(table, name).values().stream()
                          .mapToLong(Long::longValue)
                          .sum()
                      : 0
              : () -> PaimonSink.watermarkSum(paimonTables, table, name);

      produce(stack, topic, iceberg, 0, PER_PHASE);
      awaitWatermarks(stack, name, watermarks, PER_PHASE);

      // The route asks for the metadata now: the table that exists gains the column.
      Map<String, String> withMetadata = new HashMap<>(plain.config());
      withMetadata.put("route." + route + ".kafka-metadata", ALL);
      stack.connect().putConfig(name, withMetadata);
      // Records produced before the reconfigured tasks start would be written by the old ones,
      // without the column: wait until every task was instantiated again.
      int tasks = Integer.parseInt(plain.config().getOrDefault("tasks.max", "1"));
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                String logs = IcebergRebalanceE2E.workerLogs(stack);
                for (int i = 0; i < tasks; i++) {
                  String task = Pattern.quote(name + "-" + i);
                  if (IcebergRebalanceE2E.count(logs, "Instantiated task " + task + " ") < 2) {
                    return false;
                  }
                }
                return true;
              });
      Map<Long, Map<String, Object>> expected =
          produce(stack, topic, iceberg, PER_PHASE, 2 * PER_PHASE);
      awaitWatermarks(stack, name, watermarks, 2L * PER_PHASE);

      Map<Long, Map<String, Object>> actual = new TreeMap<>();
      if (iceberg) {
        assertThat(icebergTables.table(table).schema().findField("_kafka").type().toString())
            .contains("offset: optional long", "timestamp: optional timestamptz")
            .contains("headers: optional map<string, string>");
        for (Map<String, Object> row : icebergTables.rows(table)) {
          assertThat(actual.put((Long) row.get("id"), fromIceberg((Record) row.get("_kafka"))))
              .as("id %s once", row.get("id"))
              .isNull();
        }
      } else {
        assertThat(paimonTables.table(table).primaryKeys()).containsExactly("id");
        // Deletion vectors: a commit's rows are visible with the compaction snapshot after it.
        await()
            .atMost(Duration.ofSeconds(60))
            .untilAsserted(() -> assertThat(paimonTables.rows(table)).hasSize(2 * PER_PHASE));
        for (Map<String, Object> row : paimonTables.rows(table)) {
          @SuppressWarnings("unchecked")
          Map<String, Object> metadata = (Map<String, Object>) row.get("_kafka");
          assertThat(actual.put((Long) row.get("id"), fromPaimon(metadata)))
              .as("id %s once", row.get("id"))
              .isNull();
        }
      }
      assertThat(actual).hasSize(2 * PER_PHASE);
      for (long id = 0; id < PER_PHASE; id++) {
        assertThat(actual.get(id)).as("row %d, written before the column", id).isNull();
      }
      Map<Long, Map<String, Object>> after = new TreeMap<>(actual);
      after.keySet().removeIf(id -> id < PER_PHASE);
      assertThat(after).isEqualTo(expected);
    } finally {
      if (icebergTables != null) {
        icebergTables.close();
      }
      if (paimonTables != null) {
        paimonTables.close();
      }
    }
    stack.connect().delete(name);
  }

  /**
   * Produces ids {@code from} to {@code to} (partition id % 2, timestamp T0 + id s, a key, and
   * headers: none on every fifth, a header without a value on every seventh, "trace" twice on the
   * others); the metadata each should get, by id.
   */
  private static Map<Long, Map<String, Object>> produce(
      LocalStack stack, String topic, boolean iceberg, int from, int to) throws Exception {
    ConnectJson.StructSchema schema =
        ConnectJson.struct("row").field("id", "int64", false).field("name", "string", true);
    Map<Long, Future<RecordMetadata>> sent = new TreeMap<>();
    Map<Long, Map<String, Object>> expected = new TreeMap<>();
    try (JsonRecordProducer producer = stack.producer()) {
      for (long id = from; id < to; id++) {
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        Map<String, String> expectedHeaders = new HashMap<>();
        if (id % 5 != 0) {
          headers.add(Map.entry("trace", "t-" + id));
          headers.add(Map.entry("source", "e2e"));
          headers.add(Map.entry("trace", "t-" + id + "-last"));
          expectedHeaders.put("trace", "t-" + id + "-last");
          expectedHeaders.put("source", "e2e");
        }
        if (id % 7 == 0) {
          headers.add(new java.util.AbstractMap.SimpleEntry<>("empty", null));
          expectedHeaders.put("empty", null);
        }
        String key = iceberg ? "k-" + id : SampleCustomers.key(id);
        sent.put(
            id,
            producer.sendRaw(
                topic,
                (int) (id % 2),
                T0 + id * 1000,
                key,
                JsonText.of(ConnectJson.envelope(schema, Map.of("id", id, "name", "n" + id))),
                headers));
        Map<String, Object> metadata = new HashMap<>();
        metadata.put("topic", topic);
        metadata.put("partition", (int) (id % 2));
        metadata.put("timestamp", T0 + id * 1000);
        metadata.put("key", iceberg ? key : "{\"id\":" + id + "}");
        metadata.put("headers", expectedHeaders);
        expected.put(id, metadata);
      }
      producer.flush();
    }
    for (Map.Entry<Long, Future<RecordMetadata>> e : sent.entrySet()) {
      RecordMetadata m = e.getValue().get();
      expected.get(e.getKey()).put("offset", m.offset());
      assertThat(m.partition()).isEqualTo((int) (e.getKey() % 2));
    }
    return expected;
  }

  private static Map<String, Object> fromIceberg(Record metadata) {
    if (metadata == null) {
      return null;
    }
    Map<String, Object> values = new HashMap<>();
    values.put("topic", metadata.getField("topic"));
    values.put("partition", metadata.getField("partition"));
    values.put("offset", metadata.getField("offset"));
    OffsetDateTime timestamp = (OffsetDateTime) metadata.getField("timestamp");
    values.put("timestamp", timestamp == null ? null : timestamp.toInstant().toEpochMilli());
    values.put("key", metadata.getField("key"));
    values.put("headers", new HashMap<>((Map<?, ?>) metadata.getField("headers")));
    return values;
  }

  private static Map<String, Object> fromPaimon(Map<String, Object> metadata) {
    if (metadata == null) {
      return null;
    }
    Map<String, Object> values = new HashMap<>(metadata);
    Object timestamp = metadata.get("timestamp"); // a TIMESTAMP_LTZ as its UTC local date-time
    values.put(
        "timestamp",
        timestamp == null
            ? null
            : LocalDateTime.parse(timestamp.toString()).toInstant(ZoneOffset.UTC).toEpochMilli());
    return values;
  }

  private static void awaitWatermarks(
      LocalStack stack, String connector, LongSupplier sum, long end) {
    await()
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(1))
        .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, connector))
        .until(() -> sum.getAsLong() == end);
  }
}
