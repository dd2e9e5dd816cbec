package io.streamhouse.connect.table.iceberg;

import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.TABLE;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.VALUE;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.commitOne;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.rows;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.tombstone;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.writer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.table.TableWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A keyed route with {@code order-by=score}: a change whose score is lower than that of the row the
 * table holds for its key is dropped, within a batch, across batches, after a restart (the index
 * reads the scores back) and when another task committed the key's newer row from another Kafka
 * partition; a Debezium delete is ordered by its before image, a tombstone always applies.
 */
class IcebergKeyedOrderByTest {
  private static final TopicPartition TP0 = new TopicPartition("orders", 0);
  private static final TopicPartition TP1 = new TopicPartition("orders", 1);

  @TempDir Path dir;

  private final Map<Long, String> model = new TreeMap<>();

  private StreamhouseSinkConfig config(int formatVersion) {
    return KeyedTableFixture.config(dir, formatVersion, Map.of("route.orders.order-by", "score"));
  }

  private static SinkRecord change(int partition, long offset, long id, int score) {
    Struct value = new Struct(VALUE).put("id", id).put("name", "v" + score).put("score", score);
    return new SinkRecord("orders", partition, Schema.INT64_SCHEMA, id, VALUE, value, offset);
  }

  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void olderChangesOfAKeyAreDroppedInABatchAcrossBatchesAndAfterARestart(int formatVersion)
      throws Exception {
    StreamhouseSinkConfig config = config(formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      TableWriter writer = writer(format, config);
      writer.write(change(0, 0, 1, 5));
      writer.write(change(0, 1, 1, 3)); // older: dropped
      writer.write(change(0, 2, 2, 7));
      writer.write(change(0, 3, 2, 7)); // a tie: the later one applies
      writer.write(change(0, 4, 3, 1));
      assertThat(commitOne(format, 1, TP0, 0, 5, writer.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      writer.write(change(0, 5, 1, 4)); // older than the committed row
      writer.write(change(0, 6, 3, 2));
      assertThat(commitOne(format, 2, TP0, 5, 7, writer.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      model.putAll(Map.of(1L, "v5", 2L, "v7", 3L, "v2"));
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      writer.close();

      TableWriter restarted = writer(format, config); // reads the scores back with the keys
      restarted.write(change(0, 7, 1, 2));
      restarted.write(change(0, 8, 2, 9));
      assertThat(commitOne(format, 3, TP0, 7, 9, restarted.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      model.put(2L, "v9");
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      assertThatThrownBy(
              () ->
                  restarted.write(
                      new SinkRecord(
                          "orders",
                          0,
                          Schema.INT64_SCHEMA,
                          4L,
                          VALUE,
                          new Struct(VALUE).put("id", 4L).put("name", "no score"),
                          9)))
          .isInstanceOf(RecordConversionException.class)
          .hasMessageContaining("order-by field 'score' is missing or null");
      restarted.write(tombstone(0, 10, 2)); // a tombstone has no score: it applies
      assertThat(commitOne(format, 4, TP0, 9, 11, restarted.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      model.remove(2L);
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      restarted.close();
    }
  }

  /**
   * A key's newer row committed by another task from another partition wins over this task's older
   * change of it, whichever order the two commits come in.
   */
  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void anotherTasksNewerRowOfAKeyWinsOverAnOlderChangeCommittedAfterIt(int formatVersion)
      throws Exception {
    StreamhouseSinkConfig config = config(formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      TableWriter backlog = writer(format, config); // the old partition's task
      TableWriter moved = writer(format, config); // the new partition's task
      moved.write(change(1, 0, 10, 9));
      moved.write(change(1, 1, 11, 2));
      assertThat(commitOne(format, 1, TP1, 0, 2, moved.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      backlog.write(change(0, 0, 10, 5)); // older than the committed row: loses at prepare
      backlog.write(change(0, 1, 11, 6)); // newer: replaces it
      assertThat(commitOne(format, 2, TP0, 0, 2, backlog.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      model.put(10L, "v9");
      model.put(11L, "v6");
      assertThat(rows(format.table(TABLE))).isEqualTo(model);

      // Its index now holds the other task's rows and scores: older changes are dropped at once.
      backlog.write(change(0, 2, 10, 8));
      backlog.write(change(0, 3, 11, 7));
      assertThat(commitOne(format, 3, TP0, 2, 4, backlog.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      model.put(11L, "v7");
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      backlog.close();
      moved.close();
    }
  }

  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2})
  void aDebeziumDeleteOfAnOlderRowIsDroppedAndOfTheCurrentOneApplies(int formatVersion)
      throws Exception {
    StreamhouseSinkConfig config =
        KeyedTableFixture.config(
            dir,
            formatVersion,
            Map.of("route.orders.order-by", "score", "route.orders.input", "debezium"));
    Schema envelope =
        SchemaBuilder.struct()
            .field(
                "before",
                SchemaBuilder.struct()
                    .optional()
                    .field("id", Schema.INT64_SCHEMA)
                    .field("name", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("score", Schema.OPTIONAL_INT32_SCHEMA)
                    .build())
            .field(
                "after",
                SchemaBuilder.struct()
                    .optional()
                    .field("id", Schema.INT64_SCHEMA)
                    .field("name", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("score", Schema.OPTIONAL_INT32_SCHEMA)
                    .build())
            .field("op", Schema.STRING_SCHEMA)
            .build();
    java.util.function.BiFunction<Long, Integer, Struct> image =
        (id, score) ->
            new Struct(envelope.field("after").schema())
                .put("id", id)
                .put("name", "v" + score)
                .put("score", score);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      SinkRecord first =
          new SinkRecord(
              "orders",
              0,
              Schema.INT64_SCHEMA,
              1L,
              envelope,
              new Struct(envelope).put("after", image.apply(1L, 5)).put("op", "c"),
              0);
      TableWriter writer =
          format
              .openWriter(
                  TABLE,
                  config.routes().get(0),
                  first,
                  new io.streamhouse.connect.table.FileBudget(8, 64L << 20))
              .orElseThrow();
      writer.write(first);
      writer.write(
          new SinkRecord(
              "orders",
              0,
              Schema.INT64_SCHEMA,
              2L,
              envelope,
              new Struct(envelope).put("after", image.apply(2L, 4)).put("op", "c"),
              1));
      assertThat(commitOne(format, 1, TP0, 0, 2, writer.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      for (long[] delete : new long[][] {{1, 3}, {2, 4}}) { // key 1's before is older: dropped
        writer.write(
            new SinkRecord(
                "orders",
                0,
                Schema.INT64_SCHEMA,
                delete[0],
                envelope,
                new Struct(envelope)
                    .put("before", image.apply(delete[0], (int) delete[1]))
                    .put("op", "d"),
                1 + delete[0]));
      }
      assertThat(commitOne(format, 2, TP0, 2, 4, writer.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      assertThat(rows(format.table(TABLE))).isEqualTo(Map.of(1L, "v5"));
      writer.close();
    }
  }

  @ParameterizedTest(name = "order-by {0}")
  @ValueSource(strings = {"name", "missing"})
  void anOrderByColumnThatIsNotANumberDateOrTimestampFailsTheWriterNamingIt(String column)
      throws Exception {
    StreamhouseSinkConfig config =
        KeyedTableFixture.config(dir, 2, Map.of("route.orders.order-by", column));
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      assertThatThrownBy(() -> writer(format, config))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("route orders: order-by column '" + column + "'")
          .hasMessageContaining("default.orders");
    }
  }
}
