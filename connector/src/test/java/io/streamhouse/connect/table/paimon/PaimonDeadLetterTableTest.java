package io.streamhouse.connect.table.paimon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.errors.DeadLetterRows;
import io.streamhouse.connect.errors.DeadLetterStage;
import io.streamhouse.connect.errors.SchemaChangeRejectedException;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.FileBudget;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.LocalZonedTimestampType;
import org.junit.jupiter.api.Test;

/**
 * The dead-letter table in a Paimon catalog: an append table of the dead-letter columns (the
 * Iceberg table's names and types, required ones NOT NULL), written by several tasks into the same
 * commit, with the bad records' watermarks, a replay skipped; a table with a primary key refused.
 */
class PaimonDeadLetterTableTest extends ItemsTableFixture {
  private final TableId deadLetters = new TableId("lake", List.of("errors"), "dead_letters");

  private StreamhouseSinkConfig withDeadLetterTable() {
    return config(
        Map.of("errors.tolerance", "all", "errors.deadletter.table", "errors.dead_letters"));
  }

  /** The dead-letter row task {@code task} writes for the bad record at {@code offset}. */
  private static SinkRecord row(int task, int partition, long offset) {
    Struct value = new Struct(ROW).put("id", offset).put("name", "bad-" + offset);
    SinkRecord bad =
        new SinkRecord(
            "items",
            partition,
            Schema.STRING_SCHEMA,
            "k-" + offset,
            ROW,
            value,
            offset,
            1_000L + offset,
            TimestampType.CREATE_TIME);
    return new DeadLetterRows("test-sink", task, () -> 1_767_225_600_000L)
        .row(
            bad,
            "items",
            "lake:db.items",
            DeadLetterStage.SCHEMA,
            new SchemaChangeRejectedException("id", "field 'id' is int64 but column is string"));
  }

  @Test
  void theTableIsAnAppendTableWithTheColumnsOfTheIcebergOne() throws Exception {
    StreamhouseSinkConfig config = withDeadLetterTable();
    RouteSettings route = config.deadLetterRoute().orElseThrow();
    assertThat(config.deadLetterTable()).contains(deadLetters);
    try (PaimonFormat format = format(config)) {
      format.commit(
          deadLetters,
          1000,
          List.of(batch(format, deadLetters, route, List.of(row(0, 0, 5)))),
          true);
      FileStoreTable table = format.table(deadLetters);
      assertThat(table.primaryKeys()).isEmpty();
      assertThat(table.partitionKeys()).isEmpty();
      assertThat(table.options()).containsEntry("bucket", "-1");
      List<DataField> columns = table.rowType().getFields();
      List<Field> expected = DeadLetterRows.SCHEMA.fields();
      assertThat(columns)
          .extracting(DataField::name)
          .containsExactlyElementsOf(expected.stream().map(Field::name).toList());
      for (int i = 0; i < expected.size(); i++) {
        Schema field = expected.get(i).schema();
        DataType column = columns.get(i).type();
        assertThat(column.getTypeRoot()).as(expected.get(i).name()).isEqualTo(paimonRoot(field));
        assertThat(column.isNullable())
            .as("%s nullable", expected.get(i).name())
            .isEqualTo(field.isOptional());
        if (column instanceof LocalZonedTimestampType ts) {
          assertThat(ts.getPrecision()).as("Connect timestamps are milliseconds").isEqualTo(3);
        }
      }
    }
  }

  /** The Paimon type of a dead-letter column's Connect schema, as for the Iceberg table. */
  private static DataTypeRoot paimonRoot(Schema schema) {
    if (Timestamp.LOGICAL_NAME.equals(schema.name())) {
      return DataTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE; // Iceberg: timestamptz
    }
    return switch (schema.type()) {
      case STRING -> DataTypeRoot.VARCHAR;
      case INT32 -> DataTypeRoot.INTEGER;
      case INT64 -> DataTypeRoot.BIGINT;
      case BOOLEAN -> DataTypeRoot.BOOLEAN;
      default -> throw new AssertionError("no dead-letter column is " + schema.type());
    };
  }

  @Test
  void rowsOfTwoTasksLandInOneCommitWithTheirWatermarksAndAReplayIsSkipped() throws Exception {
    StreamhouseSinkConfig config = withDeadLetterTable();
    RouteSettings route = config.deadLetterRoute().orElseThrow();
    try (PaimonFormat format = format(config)) {
      OfferedBatch task0 = batch(format, deadLetters, route, List.of(row(0, 0, 3), row(0, 0, 9)));
      OfferedBatch task1 = batch(format, deadLetters, route, List.of(row(1, 1, 4)));
      CommitOutcome outcome = format.commit(deadLetters, 1000, List.of(task0, task1), true);
      assertThat(outcome.decisions())
          .containsEntry(task0.batchId(), BatchPlan.Decision.APPLY)
          .containsEntry(task1.batchId(), BatchPlan.Decision.APPLY);
      assertThat(format.watermarks(deadLetters).asMap())
          .isEqualTo(
              Map.of(new TopicPartition("items", 0), 10L, new TopicPartition("items", 1), 5L));

      OfferedBatch replay = batch(format, deadLetters, route, List.of(row(1, 1, 4)));
      CommitOutcome again = format.commit(deadLetters, 1001, List.of(replay), true);
      assertThat(again.decisions())
          .containsEntry(replay.batchId(), BatchPlan.Decision.ALREADY_PRESENT);

      List<String> landed = new ArrayList<>();
      ReadBuilder read = format.table(deadLetters).newReadBuilder();
      try (RecordReader<InternalRow> reader =
          read.newRead().createReader(read.newScan().plan().splits())) {
        reader.forEachRemaining(
            r ->
                landed.add(
                    r.getString(0)
                        + ":"
                        + r.getInt(1)
                        + ":"
                        + r.getLong(2)
                        + " task "
                        + r.getInt(9)
                        + " "
                        + r.getString(12)
                        + " "
                        + r.getString(11)));
      }
      assertThat(landed)
          .containsExactlyInAnyOrder(
              "items:0:3 task 0 schema lake:db.items",
              "items:0:9 task 0 schema lake:db.items",
              "items:1:4 task 1 schema lake:db.items");
    }
  }

  @Test
  void anExistingTableWithAPrimaryKeyIsRefusedNamingIt() throws Exception {
    StreamhouseSinkConfig config = withDeadLetterTable();
    try (PaimonFormat format = format(config)) {
      RouteSettings items = config.routes().get(0);
      TableId keyed = new TableId("lake", List.of("errors"), "dead_letters");
      // a table of the same name made by a route with a primary key
      format.commit(
          keyed,
          1000,
          List.of(batch(format, keyed, items, List.of(upsert(0, 0, 1, "a", null)))),
          true);
      assertThat(format.table(keyed).primaryKeys()).containsExactly("id");

      assertThatThrownBy(
              () ->
                  format.openWriter(
                      deadLetters,
                      config.deadLetterRoute().orElseThrow(),
                      row(0, 0, 1),
                      new FileBudget(8, 64L << 20)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("lake:errors.dead_letters")
          .hasMessageContaining("errors.deadletter.table")
          .hasMessageContaining("primary key [id]")
          .hasMessageContaining("must be an append table");
    }
  }
}
