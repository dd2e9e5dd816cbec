package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Records that cannot be written go to the dead-letter queue, or fail the task; none vanish. */
@ExtendWith(LocalStackExtension.class)
class BadInputE2E {
  @Test
  void withToleranceAllBadRecordsGoToTheDlqWithTheirReasonAndTheRestFlowsOn(LocalStack stack) {
    String topic = "bad-input-dlq";
    stack.createTopic(topic, 1, Map.of());
    ConnectorExample sink = IcebergSink.config(stack, "bad-dlq", topic, Map.of("tasks.max", "1"));
    Set<Long> good = new HashSet<>();
    try (JsonRecordProducer producer = stack.producer()) {
      for (SampleOrders.Order o : SampleOrders.generate(0, 10)) {
        producer.sendWithSchema(topic, 0, o.key(), SampleOrders.SCHEMA, o.payload());
        good.add((Long) o.payload().get("id"));
      }
      producer.sendRaw(
          topic, 0, "malformed", "{\"schema\": {\"type\": \"struct\", \"fields\": ["); // offset 10
      Map<String, Object> wrongType = new HashMap<>(SampleOrders.generate(100, 1).get(0).payload());
      wrongType.put("id", "not-a-number");
      ConnectJson.StructSchema loose = orderWithoutId().field("id", "string", false);
      producer.sendWithSchema(topic, 0, "wrong-type", loose, wrongType); // offset 11
      Map<String, Object> missing = new HashMap<>(SampleOrders.generate(101, 1).get(0).payload());
      missing.remove("id");
      ConnectJson.StructSchema noId = orderWithoutId();
      producer.sendWithSchema(topic, 0, "missing-id", noId, missing); // offset 12
      for (SampleOrders.Order o : SampleOrders.generate(10, 10)) {
        producer.sendWithSchema(topic, 0, o.key(), SampleOrders.SCHEMA, o.payload());
        good.add((Long) o.payload().get("id"));
      }
      producer.flush();
    }
    stack.connect().putConfig(sink.name(), sink.config());

    try (IcebergTables tables = IcebergSink.tables(stack)) {
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, sink.name()))
          .untilAsserted(
              () -> {
                // the table is created with the first record (loading it before would throw)
                assertThat(tables.exists(IcebergSink.tableOf(topic))).isTrue();
                assertThat(tables.watermarks(IcebergSink.tableOf(topic), sink.name()))
                    .containsEntry(topic + ":0", 23L);
              });
      List<Long> ids =
          tables.rows(IcebergSink.tableOf(topic)).stream().map(r -> (Long) r.get("id")).toList();
      assertThat(new HashSet<>(ids)).isEqualTo(good);
      assertThat(ids).hasSize(good.size());
    }

    List<ConsumerRecord<String, String>> dlq = readAll(stack, "dlq-" + sink.name(), 3);
    assertThat(dlq)
        .extracting(ConsumerRecord::key)
        .containsExactly("malformed", "wrong-type", "missing-id");
    assertThat(header(dlq.get(0), "__connect.errors.stage")).isEqualTo("VALUE_CONVERTER");
    assertThat(header(dlq.get(1), "__connect.errors.exception.message"))
        .contains(
            "Connector bad-dlq task 0",
            "topic bad-input-dlq partition 0 offset 11",
            "table local:e2e.bad_input_dlq",
            "field id",
            "field 'id' is string but column is int64");
    assertThat(header(dlq.get(2), "__connect.errors.exception.message"))
        .contains("offset 12", "field id", "the record has no field 'id' for required column 'id'");
    stack.connect().delete(sink.name());
  }

  @Test
  void withToleranceAllAndNoDeadLetterTopicBadRecordsAreSkippedCountedAndLogged(LocalStack stack)
      throws Exception {
    String topic = "bad-input-skip";
    stack.createTopic(topic, 1, Map.of());
    ConnectorExample example =
        IcebergSink.config(stack, "bad-skip", topic, Map.of("tasks.max", "1"));
    Map<String, String> config = new HashMap<>(example.config());
    config.keySet().removeIf(k -> k.startsWith("errors.deadletterqueue."));
    config.remove("errors.log.enable");
    assertThat(config).containsEntry("errors.tolerance", "all");
    Set<Long> good = new HashSet<>();
    try (JsonRecordProducer producer = stack.producer()) {
      for (SampleOrders.Order o : SampleOrders.generate(0, 10)) {
        producer.sendWithSchema(topic, 0, o.key(), SampleOrders.SCHEMA, o.payload());
        good.add((Long) o.payload().get("id"));
      }
      // offset 10: a schema change the table refuses (int64 column, string field)
      Map<String, Object> wrongType = new HashMap<>(SampleOrders.generate(100, 1).get(0).payload());
      wrongType.put("id", "not-a-number");
      producer.sendWithSchema(
          topic, 0, "wrong-type", orderWithoutId().field("id", "string", false), wrongType);
      for (SampleOrders.Order o : SampleOrders.generate(10, 10)) {
        producer.sendWithSchema(topic, 0, o.key(), SampleOrders.SCHEMA, o.payload());
        good.add((Long) o.payload().get("id"));
      }
      producer.flush();
    }
    stack.connect().putConfig(example.name(), config);

    try (IcebergTables tables = IcebergSink.tables(stack)) {
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, example.name()))
          .untilAsserted(
              () -> {
                assertThat(tables.exists(IcebergSink.tableOf(topic))).isTrue();
                assertThat(tables.watermarks(IcebergSink.tableOf(topic), example.name()))
                    .containsEntry(topic + ":0", 21L);
              });
      List<Long> ids =
          tables.rows(IcebergSink.tableOf(topic)).stream().map(r -> (Long) r.get("id")).toList();
      assertThat(new HashSet<>(ids)).isEqualTo(good);
      assertThat(ids).hasSize(good.size());
    }
    assertThat(stack.connect().isRunning(example.name(), 1))
        .as("connector and task RUNNING")
        .isTrue();
    try (WorkerJmx jmx = new WorkerJmx(stack.worker().process().pid())) {
      String task0 = "kafka.connect:type=plugins,connector=" + example.name() + ",task=*";
      assertThat(jmx.values(task0, "task", "task-records-skipped-total")).containsEntry("0", 1.0);
      assertThat(jmx.values(task0, "task", "task-records-dead-lettered-total"))
          .containsEntry("0", 1.0);
    }
    assertThat(java.nio.file.Files.readString(stack.worker().logFile()))
        .contains(
            "Connector bad-skip task 0: cannot write the record at topic bad-input-skip partition 0"
                + " offset 10 to table local:e2e.bad_input_skip: field id: field 'id' is string but"
                + " column is int64",
            "(skipped: errors.tolerance=all without a dead-letter destination)");
    stack.connect().delete(example.name());
  }

  @Test
  void withToleranceNoneTheTaskFailsNamingWhatIsWrong(LocalStack stack) {
    String topic = "bad-input-fail";
    stack.createTopic(topic, 1, Map.of());
    ConnectorExample sink =
        IcebergSink.config(
            stack,
            "bad-fail",
            topic,
            Map.of(
                "tasks.max",
                "1",
                "errors.tolerance",
                "none",
                "value.converter.schemas.enable",
                "false",
                "route.orders.partition-by",
                ""));
    Map<String, String> config = new HashMap<>(sink.config());
    config.remove("errors.deadletterqueue.topic.name");
    try (JsonRecordProducer producer = stack.producer()) {
      Map<String, Object> payload = new HashMap<>(SampleOrders.generate(0, 1).get(0).payload());
      producer.send(topic, 0, "schemaless", payload); // the route's table needs created_at etc.
      payload.put("id", "x-1");
      producer.send(topic, 0, "bad", payload);
      producer.flush();
    }
    stack.connect().putConfig(sink.name(), config);
    await()
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> IcebergExactlyOnceE2E.failed(stack, sink.name()));
    JsonNode task = stack.connect().status(sink.name()).path("tasks").get(0);
    assertThat(task.path("trace").asText())
        .contains(
            "Connector bad-fail task 0: cannot write the record at topic bad-input-fail partition 0 offset 1"
                + " to table local:e2e.bad_input_fail: field id: field 'id' is string but column is int64");
    stack.connect().delete(sink.name());
  }

  /**
   * With errors.tolerance=none a missing table (auto-create off) fails the task with a clear
   * message; with errors.tolerance=all its records are bad records of stage {@code table}
   * (DeadLetterTableE2E).
   */
  @Test
  void aMissingTableWithAutoCreateOffAndToleranceNoneFailsWithAClearMessage(LocalStack stack) {
    String topic = "no-table";
    stack.createTopic(topic, 1, Map.of());
    ConnectorExample example =
        IcebergSink.config(
            stack,
            "no-table",
            topic,
            Map.of(
                "tasks.max", "1", "route.orders.auto-create", "false", "errors.tolerance", "none"));
    Map<String, String> config = new HashMap<>(example.config());
    config.remove("errors.deadletterqueue.topic.name");
    ConnectorExample sink = new ConnectorExample(example.name(), config);
    try (JsonRecordProducer producer = stack.producer()) {
      SampleOrders.Order o = SampleOrders.generate(1).get(0);
      producer.sendWithSchema(topic, 0, o.key(), SampleOrders.SCHEMA, o.payload());
      producer.flush();
    }
    stack.connect().putConfig(sink.name(), sink.config());
    await()
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> IcebergExactlyOnceE2E.failed(stack, sink.name()));
    assertThat(stack.connect().status(sink.name()).path("tasks").get(0).path("trace").asText())
        .contains(
            "Table e2e.no_table does not exist in catalog local and route orders has auto-create off");
    stack.connect().delete(sink.name());
  }

  /** The sample order schema without {@code id}. */
  static ConnectJson.StructSchema orderWithoutId() {
    return ConnectJson.struct("io.streamhouse.sample.Order")
        .field("customer", "string", false)
        .field("amount", "double", false)
        .field("status", "string", true)
        .field(
            "created_at",
            Map.of(
                "type",
                "int64",
                "optional",
                false,
                "name",
                "org.apache.kafka.connect.data.Timestamp",
                "version",
                1));
  }

  static List<ConsumerRecord<String, String>> readAll(
      LocalStack stack, String topic, int expected) {
    Properties props = new Properties();
    props.putAll(stack.clientSecurity());
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "dlq-reader-" + System.nanoTime());
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      await()
          .atMost(Duration.ofMinutes(1))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(500)).forEach(records::add);
                return records.size() >= expected;
              });
    }
    return records;
  }

  static String header(ConsumerRecord<String, String> record, String key) {
    Header h = record.headers().lastHeader(key);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}
