package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One topic whose records name their table in a field, round-robin over 60 auto-created tables, two
 * tasks, a write budget far too small to hold a commit interval of rows: every record lands once in
 * its table, and the budget cuts files of a share of it, never one per record.
 */
@ExtendWith(LocalStackExtension.class)
class FanoutE2E {
  private static final ConnectJson.StructSchema SCHEMA =
      ConnectJson.struct("e2e.FanoutRow")
          .field("id", "int64", false)
          .field("table", "string", false)
          .field("customer", "string", false)
          .field("note", "string", true);
  private static final int TABLES = 60;
  private static final int RECORDS = 30_000;

  @Test
  void recordsRoutedByAFieldToSixtyTablesLandOnceInFilesOfAShareOfTheBudget(LocalStack stack)
      throws Exception {
    String topic = "fanout-events";
    stack.createTopic(topic, 4, Map.of());
    Map<String, String> overrides = new HashMap<>();
    overrides.put("tasks.max", "2");
    overrides.put("route.orders.table", "");
    overrides.put("route.orders.table.field", "table");
    overrides.put("route.orders.table.allow-regex", "fan_t[0-9]+");
    overrides.put("route.orders.namespace", "e2e");
    overrides.put("route.orders.partition-by", "");
    overrides.put("iceberg.write-buffer-bytes", Integer.toString(2 * 1024 * 1024));
    overrides.put("commit.interval.ms", "5000");
    ConnectorExample sink = IcebergSink.config(stack, "fanout", topic, overrides);
    Map<String, String> config = new HashMap<>(sink.config());
    config.remove("route.orders.table");
    stack.connect().putConfig(sink.name(), config);

    Map<String, Set<Long>> produced = new HashMap<>();
    try (JsonRecordProducer producer = stack.producer()) {
      for (long id = 0; id < RECORDS; id++) {
        String table = "fan_t" + (id % TABLES);
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("id", id);
        payload.put("table", table);
        payload.put("customer", "customer-" + (id % 97));
        payload.put("note", "x".repeat(100) + id);
        producer.sendWithSchema(topic, null, "k" + id, SCHEMA, payload);
        produced.computeIfAbsent(table, t -> new HashSet<>()).add(id);
      }
      producer.flush();
    }

    try (IcebergTables tables = IcebergSink.tables(stack)) {
      await()
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofSeconds(1))
          .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, sink.name()))
          .until(
              () ->
                  stack
                          .connect()
                          .offsets(sink.name())
                          .path("offsets")
                          .findValues("kafka_offset")
                          .stream()
                          .mapToLong(n -> n.asLong())
                          .sum()
                      >= RECORDS);
      int files = 0;
      for (Map.Entry<String, Set<Long>> e : produced.entrySet()) {
        String table = "e2e." + e.getKey();
        List<Long> ids = tables.rows(table).stream().map(r -> (Long) r.get("id")).toList();
        assertThat(ids).as(table).hasSize(e.getValue().size());
        assertThat(new HashSet<>(ids)).as(table).isEqualTo(e.getValue());
        try (CloseableIterable<FileScanTask> tasks = tables.table(table).newScan().planFiles()) {
          for (FileScanTask ignored : tasks) {
            files++;
          }
        }
      }
      System.out.printf("%d tables, %,d records, %d data files%n", TABLES, RECORDS, files);
      assertThat(files)
          .as("data files of %,d records in %d tables", RECORDS, TABLES)
          .isGreaterThanOrEqualTo(TABLES)
          .isLessThan(RECORDS / 20);
    }
    stack.connect().delete(sink.name());
  }
}
