package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamhouse.connect.commit.FaultInjection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The worker JVM dies like kill -9 at each point of the commit protocol and of maintenance (halted
 * by the test-only fault injection, so the point is exact), is restarted, and the table still ends
 * up with every produced record exactly once.
 */
@ExtendWith(LocalStackExtension.class)
class IcebergFaultsE2E {
  private static final int RECORDS = 20_000;

  @ParameterizedTest(name = "halt at {0}")
  @EnumSource(FaultInjection.Point.class)
  void aWorkerKilledMidCommitLosesNothingAndDuplicatesNothing(
      FaultInjection.Point point, LocalStack stack) throws Exception {
    String name = point.name().toLowerCase(Locale.ROOT).replace('_', '-');
    String topic = "fault-" + name;
    stack.createTopic(topic, 4, Map.of());
    Path marker = stack.runDir().resolve("halted-" + name);
    // Maintenance expires every snapshot it may (the connector's tagged one stays) and compacts
    // partitions with two small files each second, so that the maintenance points are reached, and
    // the commit points are reached with maintenance running.
    ConnectorExample sink =
        IcebergSink.config(
            stack,
            "fault-" + name,
            topic,
            Map.of(
                "tasks.max",
                "2",
                "streamhouse.test.halt-at",
                point.name() + ":" + marker,
                "maintenance.interval.ms",
                "1000",
                "maintenance.expire.max-age.ms",
                "1",
                "maintenance.expire.min-snapshots",
                "1",
                "maintenance.compact.min-input-files",
                "2"));

    Set<Long> produced = new HashSet<>();
    produce(stack, topic, 0, RECORDS / 4, produced);
    stack.connect().putConfig(sink.name(), sink.config());
    if (point == FaultInjection.Point.AFTER_EXPIRY_COMMIT
        || point == FaultInjection.Point.BEFORE_REWRITE_COMMIT) {
      // An expiry needs a second snapshot, a rewrite a second file: the rest comes after the first
      // commit.
      try (IcebergTables tables = IcebergSink.tables(stack)) {
        awaitWatermarkSum(stack, tables, sink.name(), topic, RECORDS / 4);
      }
    }
    produce(stack, topic, RECORDS / 4, RECORDS / 4, produced);

    ManagedProcess worker = stack.worker().process();
    assertThat(worker.awaitExit(Duration.ofMinutes(2)))
        .as("the worker halted at %s", point)
        .isTrue();
    assertThat(marker).exists();
    produce(stack, topic, RECORDS / 2, RECORDS / 2, produced); // while the worker is down
    stack.worker().restart(Duration.ofMinutes(2));

    try (IcebergTables tables = IcebergSink.tables(stack)) {
      awaitWatermarkSum(stack, tables, sink.name(), topic, RECORDS);
      IcebergSink.assertExactlyOnce(stack, tables, sink.name(), topic, produced);
    }
    String log = Files.readString(stack.worker().logFile());
    assertThat(log.substring(log.lastIndexOf("Kafka Connect started")))
        .as("the connector started anew hands its tasks the configs they run with: no second start")
        .doesNotContain("Tasks [" + sink.name() + "-");
    stack.connect().delete(sink.name());
  }

  /**
   * Connect's consumer offsets lag the tables (by up to the offset flush interval after a crash;
   * here they are deleted while the connector is stopped): the tasks seek to what the table holds
   * instead of reading it again, records produced meanwhile still arrive exactly once, and Connect
   * commits the skipped-to positions even when nothing new arrives.
   */
  @Test
  void withItsConsumerOffsetsGoneTheSinkSkipsWhatTheTableHoldsInsteadOfReadingItAgain(
      LocalStack stack) throws Exception {
    String topic = "offsets-reset";
    ConnectorExample sink =
        IcebergSink.config(stack, "offsets-reset", topic, Map.of("tasks.max", "2"));
    Set<Long> produced = drainThenDeleteOffsets(stack, sink, topic);
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      Map<String, Long> held = tables.watermarks(IcebergSink.tableOf(topic), sink.name());
      produce(stack, topic, RECORDS, 1_000, produced);
      stack.connect().resume(sink.name());

      awaitWatermarkSum(stack, tables, sink.name(), topic, RECORDS + 1_000);
      IcebergSink.assertExactlyOnce(stack, tables, sink.name(), topic, produced);
      String log = Files.readString(stack.worker().logFile());
      for (int p = 0; p < 4; p++) {
        assertThat(log)
            .as("partition %d was skipped up to the table's watermark", p)
            .contains(
                "hold "
                    + topic
                    + "-"
                    + p
                    + " below offset "
                    + held.get(topic + ":" + p)
                    + " already; skipping from offset 0 to offset "
                    + (held.get(topic + ":" + p) - 1));
      }

      // Again, with nothing new to read: Connect still commits the positions the tasks skipped to.
      stopAndDeleteOffsets(stack, sink.name());
      stack.connect().resume(sink.name());
      Map<String, Long> ends = tables.watermarks(IcebergSink.tableOf(topic), sink.name());
      await()
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(() -> assertThat(committedOffsets(stack, sink.name())).isEqualTo(ends));
    }
    stack.connect().delete(sink.name());
  }

  /**
   * Someone else expires the table's snapshots ({@code retainLast(1)}) after another writer
   * committed on top of the connector's latest snapshot; then the connector's consumer offsets are
   * gone and it reads everything again. The tag it moves with each commit kept the snapshot with
   * its watermarks, so it skips what the table holds: every record once. (Without the tag the
   * snapshot is expired and all 20,000 records land twice.)
   */
  @Test
  void anExpiryElsewhereDoesNotLoseTheWatermarks(LocalStack stack) throws Exception {
    String topic = "expired-elsewhere";
    ConnectorExample sink =
        IcebergSink.config(stack, "expired-elsewhere", topic, Map.of("tasks.max", "2"));
    stack.createTopic(topic, 4, Map.of());
    Set<Long> produced = new HashSet<>();
    produce(stack, topic, 0, RECORDS, produced);
    stack.connect().putConfig(sink.name(), sink.config());
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      awaitWatermarkSum(stack, tables, sink.name(), topic, RECORDS);
      stopAndDeleteOffsets(stack, sink.name());
      org.apache.iceberg.Table table = tables.table(IcebergSink.tableOf(topic));
      long ours = table.refs().get("streamhouse-" + sink.name()).snapshotId();
      table.newFastAppend().commit(); // another writer
      table
          .expireSnapshots()
          .expireOlderThan(System.currentTimeMillis() + 1)
          .retainLast(1)
          .commit();
      table.refresh();
      assertThat(table.snapshot(ours)).as("the connector's tagged snapshot survives").isNotNull();

      produce(stack, topic, RECORDS, 1_000, produced);
      stack.connect().resume(sink.name());
      awaitWatermarkSum(stack, tables, sink.name(), topic, RECORDS + 1_000);
      IcebergSink.assertExactlyOnce(stack, tables, sink.name(), topic, produced);
    }
    stack.connect().delete(sink.name());
  }

  /**
   * With a transform, a record's topic (and so its tables) may differ from its partition's: no
   * skipping.
   */
  @Test
  void withATransformTheSinkReadsAgainWhatTheTableHolds(LocalStack stack) throws Exception {
    String topic = "offsets-reset-smt";
    ConnectorExample sink =
        IcebergSink.config(
            stack,
            "offsets-reset-smt",
            topic,
            Map.of(
                "tasks.max",
                "2",
                "transforms",
                "mark",
                "transforms.mark.type",
                "org.apache.kafka.connect.transforms.InsertHeader",
                "transforms.mark.header",
                "via",
                "transforms.mark.value.literal",
                "streamhouse"));
    Set<Long> produced = drainThenDeleteOffsets(stack, sink, topic);
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      produce(stack, topic, RECORDS, 1_000, produced);
      stack.connect().resume(sink.name());
      awaitWatermarkSum(stack, tables, sink.name(), topic, RECORDS + 1_000);
      IcebergSink.assertExactlyOnce(stack, tables, sink.name(), topic, produced);
      assertThat(Files.readString(stack.worker().logFile())).doesNotContain("hold " + topic + "-");
    }
    stack.connect().delete(sink.name());
  }

  /**
   * Produces and drains {@link #RECORDS} records, stops the connector and deletes its consumer
   * offsets.
   */
  private static Set<Long> drainThenDeleteOffsets(
      LocalStack stack, ConnectorExample sink, String topic) {
    stack.createTopic(topic, 4, Map.of());
    Set<Long> produced = new HashSet<>();
    produce(stack, topic, 0, RECORDS, produced);
    stack.connect().putConfig(sink.name(), sink.config());
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      awaitWatermarkSum(stack, tables, sink.name(), topic, RECORDS);
    }
    stopAndDeleteOffsets(stack, sink.name());
    return produced;
  }

  private static void stopAndDeleteOffsets(LocalStack stack, String connector) {
    stack.connect().stop(connector);
    await()
        .atMost(Duration.ofMinutes(1))
        .until(
            () ->
                "STOPPED"
                    .equals(
                        stack
                            .connect()
                            .status(connector)
                            .path("connector")
                            .path("state")
                            .asText()));
    stack.connect().resetOffsets(connector);
    assertThat(committedOffsets(stack, connector)).isEmpty();
  }

  /** Connect's committed consumer offsets of the connector, {@code topic:partition -> offset}. */
  private static Map<String, Long> committedOffsets(LocalStack stack, String connector) {
    Map<String, Long> offsets = new java.util.HashMap<>();
    for (com.fasterxml.jackson.databind.JsonNode o :
        stack.connect().offsets(connector).path("offsets")) {
      offsets.put(
          o.path("partition").path("kafka_topic").asText()
              + ":"
              + o.path("partition").path("kafka_partition").asInt(),
          o.path("offset").path("kafka_offset").asLong());
    }
    return offsets;
  }

  private static void awaitWatermarkSum(
      LocalStack stack, IcebergTables tables, String connector, String topic, long records) {
    await()
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(1))
        .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, connector))
        .untilAsserted(
            () -> {
              assertThat(tables.exists(IcebergSink.tableOf(topic))).isTrue();
              assertThat(
                      tables.watermarks(IcebergSink.tableOf(topic), connector).values().stream()
                          .mapToLong(Long::longValue)
                          .sum())
                  .isEqualTo(records);
            });
  }

  static void produce(LocalStack stack, String topic, long firstId, int count, Set<Long> produced) {
    try (JsonRecordProducer producer = stack.producer()) {
      for (SampleOrders.Order order : SampleOrders.generate(firstId, count)) {
        producer.sendWithSchema(topic, null, order.key(), SampleOrders.SCHEMA, order.payload());
        produced.add((Long) order.payload().get("id"));
      }
      producer.flush();
    }
  }
}
