package io.streamhouse.connect.table.iceberg;

import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.TABLE;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.schema.FieldType;
import io.streamhouse.connect.schema.SchemaChange;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A primary-key table's schema change in round-atomic mode: the task's writer, on its pending
 * schema, updates keys (position deletes of their old rows, new rows with the new column); the
 * staged commit changes the schema and applies the batch in one table commit, and every key has one
 * live row.
 */
class PendingSchemaKeyedCommitTest {
  private static final TopicPartition TP0 = new TopicPartition("orders", 0);
  private static final Schema WITH_EMAIL =
      SchemaBuilder.struct()
          .field("id", Schema.INT64_SCHEMA)
          .field("name", Schema.STRING_SCHEMA)
          .field("score", Schema.OPTIONAL_INT32_SCHEMA)
          .field("email", Schema.OPTIONAL_STRING_SCHEMA)
          .build();

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void updatesWithANewColumnCommitWithTheSchemaChange(int formatVersion) throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      TableWriter first = KeyedTableFixture.writer(format, config);
      for (long id = 1; id <= 10; id++) {
        first.write(KeyedTableFixture.upsert(0, id - 1, id, "n" + id));
      }
      assertThat(KeyedTableFixture.commitOne(format, 1, TP0, 0, 10, first.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      PendingSchemas task = new PendingSchemas();
      IcebergSchemaChanges.apply(
          task.editable(TABLE, format.table(TABLE)),
          List.of(
              new SchemaChange.AddColumn(List.of("email"), FieldType.of(FieldType.Kind.STRING))));

      Table view = task.writable(TABLE, format.table(TABLE));
      TableWriter writer =
          KeyedWriterStart.open(
              format, view, TABLE, config.routes().get(0), new FileBudget(8, 64L << 20), 0);
      for (long id = 1; id <= 5; id++) {
        Struct value =
            new Struct(WITH_EMAIL).put("id", id).put("name", "m" + id).put("email", id + "@x");
        writer.write(
            new SinkRecord("orders", 0, Schema.INT64_SCHEMA, id, WITH_EMAIL, value, id + 9));
      }
      PreparedFiles files = writer.prepare();
      assertThat(files.payloadVersion()).isEqualTo(KeyedFilesCodec.VERSION_WITH_SCHEMA);
      StagedCommits staged = new StagedCommits();
      CommitOutcome outcome =
          IcebergCommit.run(
              format,
              TABLE,
              2L,
              List.of(new OfferedBatch("b2", 0, Map.of(TP0, new OffsetRange(10, 15)), files, 0)),
              true,
              staged);
      assertThat(format.table(TABLE).schema().findField("email")).as("staged only").isNull();
      PendingSchemaCommitTest.publish(format, staged);

      assertThat(outcome.decisions()).containsEntry("b2", BatchPlan.Decision.APPLY);
      Table after = format.table(TABLE);
      assertThat(KeyedTableFixture.rows(after))
          .hasSize(10)
          .containsEntry(3L, "m3")
          .containsEntry(8L, "n8");
      Map<Long, Object> emails = new HashMap<>();
      try (CloseableIterable<Record> rows = IcebergGenerics.read(after).build()) {
        rows.forEach(r -> emails.put((Long) r.getField("id"), r.getField("email")));
      }
      assertThat(emails).containsEntry(2L, "2@x").containsEntry(7L, null);
    }
  }
}
