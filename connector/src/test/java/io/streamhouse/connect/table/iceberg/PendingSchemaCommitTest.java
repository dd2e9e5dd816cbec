package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.schema.FieldType;
import io.streamhouse.connect.schema.SchemaChange;
import io.streamhouse.connect.table.FileBudget;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.requests.UpdateTableRequest;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * Schema changes in round-atomic mode: a task keeps its change pending and writes its files with
 * it, its batch carries the schema, and the round's staged commit changes the schema in the same
 * table commit as the data (published here through Iceberg's REST catalog handlers, as a REST
 * server applies a multi-table commit), and a per-table commit changes it just before the snapshot.
 * Two tasks that gave one new field id to different columns: the first batch commits, the second is
 * rejected, and its task, following the table, writes again under a new id.
 */
class PendingSchemaCommitTest extends AppendTableFixture {
  private static final TopicPartition TP1 = new TopicPartition("orders", 1);

  @Test
  void aPendingColumnBecomesVisibleInTheCommitThatHoldsItsValues() throws Exception {
    try (IcebergFormat format = format()) {
      commitRounds(format, 1);
      int lastColumnId = lastColumnId(format.table(table));
      PendingSchemas task = new PendingSchemas();
      addColumn(task, format, "note");

      assertThat(format.table(table).schema().findField("note")).as("not committed").isNull();
      Table view = task.writable(table, format.table(table));
      assertThat(view.schema().findField("note").fieldId()).isEqualTo(lastColumnId + 1);
      PreparedFiles files = write(view, "note", TP0, 10, 20);
      assertThat(files.payloadVersion()).isEqualTo(DataFilesCodec.VERSION_WITH_SCHEMA);

      StagedCommits staged = new StagedCommits();
      CommitOutcome outcome =
          IcebergCommit.run(format, table, 2L, List.of(batch("b1", TP0, 10, files)), true, staged);
      assertThat(outcome.decisions()).containsEntry("b1", BatchPlan.Decision.APPLY);
      assertThat(format.table(table).schema().findField("note")).as("staged only").isNull();
      publish(format, staged);

      Table after = format.table(table);
      assertThat(after.schema().findField("note").fieldId()).isEqualTo(lastColumnId + 1);
      assertThat(values(after, "note"))
          .hasSize(20)
          .containsEntry(3L, "null")
          .containsEntry(12L, "note 12");
      assertThat(task.writable(table, after)).as("nothing pending").isSameAs(after);
      assertThat(PendingSchemas.carried(after, List.of("a data file"))).isEmpty();
    }
  }

  /**
   * A batch of a writer with a pending change but no data files (its records all went to the
   * dead-letter queue) commits its offsets without the change, which stays pending for the batch
   * that holds the first files written with it.
   */
  @Test
  void aBatchWithoutDataFilesLeavesTheChangePendingForTheFilesWrittenWithIt() throws Exception {
    try (IcebergFormat format = format()) {
      commitRounds(format, 1);
      PendingSchemas task = new PendingSchemas();
      addColumn(task, format, "note");
      PreparedFiles none = write(task.writable(table, format.table(table)), "note", TP0, 10, 10);
      assertThat(none.payloadVersion()).isNotEqualTo(DataFilesCodec.VERSION_WITH_SCHEMA);

      CommitOutcome outcome = commitStaged(format, 2L, batch("b1", TP0, 10, none));

      assertThat(outcome.decisions()).containsEntry("b1", BatchPlan.Decision.APPLY);
      Table after = format.table(table);
      assertThat(after.schema().findField("note")).as("no column without files").isNull();
      Table view = task.writable(table, after);
      assertThat(view.schema().findField("note")).as("still pending").isNotNull();
      PreparedFiles files = write(view, "note", TP0, 20, 30);
      commitStaged(format, 3L, batch("b2", TP0, 20, files));
      assertThat(values(format.table(table), "note")).containsEntry(25L, "note 25");
    }
  }

  @Test
  void twoTasksGivingOneIdToDifferentColumnsCommitTheFirstAndWriteTheSecondAgain()
      throws Exception {
    try (IcebergFormat format = format()) {
      commitRounds(format, 1);
      int lastColumnId = lastColumnId(format.table(table));
      PendingSchemas taskA = new PendingSchemas();
      PendingSchemas taskB = new PendingSchemas();
      addColumn(taskA, format, "alpha");
      addColumn(taskB, format, "beta");
      PreparedFiles a = write(taskA.writable(table, format.table(table)), "alpha", TP0, 10, 20);
      PreparedFiles b = write(taskB.writable(table, format.table(table)), "beta", TP1, 0, 10);

      CommitOutcome outcome =
          commitStaged(format, 2L, batch("a", TP0, 10, a), batch("b", TP1, 0, b));

      assertThat(outcome.decisions())
          .containsEntry("a", BatchPlan.Decision.APPLY)
          .containsEntry("b", BatchPlan.Decision.REJECT);
      Table after = format.table(table);
      assertThat(after.schema().findField("alpha").fieldId()).isEqualTo(lastColumnId + 1);
      assertThat(after.schema().findField("beta")).isNull();
      assertThat(taskB.writable(table, after)).as("B's change no longer fits").isSameAs(after);

      addColumn(taskB, format, "beta");
      PreparedFiles again = write(taskB.writable(table, format.table(table)), "beta", TP1, 0, 10);
      CommitOutcome second = commitStaged(format, 3L, batch("b2", TP1, 0, again));

      assertThat(second.decisions()).containsEntry("b2", BatchPlan.Decision.APPLY);
      Table last = format.table(table);
      assertThat(last.schema().findField("beta").fieldId()).isEqualTo(lastColumnId + 2);
      assertThat(values(last, "alpha")).containsEntry(15L, "alpha 15");
      assertThat(values(last, "beta")).containsEntry(105L, "beta 105").hasSize(30);
    }
  }

  @Test
  void aPerTableCommitMakesTheSchemaChangeJustBeforeTheSnapshotThatNeedsIt() throws Exception {
    try (IcebergFormat format = format()) {
      commitRounds(format, 1);
      int lastColumnId = lastColumnId(format.table(table));
      PendingSchemas task = new PendingSchemas();
      addColumn(task, format, "note");
      PreparedFiles files = write(task.writable(table, format.table(table)), "note", TP0, 10, 20);

      CommitOutcome outcome = format.commit(table, 2L, List.of(batch("b1", TP0, 10, files)), true);

      assertThat(outcome.decisions()).containsEntry("b1", BatchPlan.Decision.APPLY);
      Table after = format.table(table);
      assertThat(after.schema().findField("note").fieldId()).isEqualTo(lastColumnId + 1);
      assertThat(after.currentSnapshot().schemaId()).isEqualTo(after.schema().schemaId());
      assertThat(values(after, "note")).hasSize(20).containsEntry(14L, "note 14");
    }
  }

  private void addColumn(PendingSchemas task, IcebergFormat format, String column) {
    IcebergSchemaChanges.apply(
        task.editable(table, format.table(table)),
        List.of(new SchemaChange.AddColumn(List.of(column), FieldType.of(FieldType.Kind.STRING))));
  }

  /** Records {@code from} to {@code to} of {@code tp}, each with {@code column} set. */
  private PreparedFiles write(Table view, String column, TopicPartition tp, long from, long to)
      throws Exception {
    SchemaBuilder builder = SchemaBuilder.struct().name("Order2");
    ORDER.fields().forEach(f -> builder.field(f.name(), f.schema()));
    Schema schema = builder.field(column, Schema.OPTIONAL_STRING_SCHEMA).build();
    IcebergTableWriter writer =
        new IcebergTableWriter(
            view,
            0,
            new FileBudget(64, 64L << 20),
            config.routes().get(0),
            new IcebergConverters().forTable(table, view));
    for (long o = from; o < to; o++) {
      long id = tp.partition() * 100 + o;
      Struct base = (Struct) record(o, id).value();
      Struct value = new Struct(schema);
      ORDER.fields().forEach(f -> value.put(f.name(), base.get(f)));
      value.put(column, column + " " + id);
      writer.write(
          new SinkRecord(
              tp.topic(), tp.partition(), Schema.STRING_SCHEMA, "k" + id, schema, value, o));
    }
    return writer.prepare();
  }

  private static OfferedBatch batch(String id, TopicPartition tp, long from, PreparedFiles files) {
    return new OfferedBatch(id, 0, Map.of(tp, new OffsetRange(from, from + 10)), files, 0L);
  }

  /** Stages a round-atomic commit of {@code batches} and publishes it. */
  private CommitOutcome commitStaged(IcebergFormat format, long commitId, OfferedBatch... batches) {
    StagedCommits staged = new StagedCommits();
    CommitOutcome outcome =
        IcebergCommit.run(format, table, commitId, List.of(batches), true, staged);
    publish(format, staged);
    return outcome;
  }

  /** Publishes the staged tables as a REST server does a multi-table commit. */
  static void publish(IcebergFormat format, StagedCommits staged) {
    staged.commit(
        commits ->
            commits.forEach(
                c ->
                    CatalogHandlers.updateTable(
                        format.catalog(),
                        c.identifier(),
                        UpdateTableRequest.create(c.identifier(), c.requirements(), c.updates()))));
  }

  private static int lastColumnId(Table table) {
    return ((HasTableOperations) table).operations().current().lastColumnId();
  }

  /** Each row's {@code column} by id, "null" for none. */
  private static Map<Long, String> values(Table table, String column) throws Exception {
    Map<Long, String> values = new HashMap<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(r -> values.put((Long) r.getField("id"), String.valueOf(r.getField(column))));
    }
    return values;
  }
}
