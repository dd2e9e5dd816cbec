package io.streamhouse.connect.table.paimon;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.DetachedFiles;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.testing.LocalCatalogConfigs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.junit.jupiter.api.Test;

/**
 * A Paimon writer that follows files not committed yet (a batch the partition's last owner handed
 * in, or the writer it replaces after a schema change) numbers a key's rows above theirs, so the
 * newest value wins; a handed-in batch it cannot read is not read on after.
 */
class PaimonHandOverTest extends ItemsTableFixture {
  /**
   * A schema change rolls a writer over: the new writer, of the new schema, numbers a key's rows
   * above the old writer's, whose files are not committed yet, so the key's last value wins
   * (without the carried sequence numbers it would number from the committed table and lose).
   */
  @Test
  void theWriterAfterASchemaChangeNumbersAboveTheWriterItFollows() throws Exception {
    StreamhouseSinkConfig config = config(Map.of());
    try (PaimonFormat format = format(config)) {
      RouteSettings route =
          new StreamhouseSinkConfig(
                  LocalCatalogConfigs.paimonItems(
                      dir, Map.of("route.items.schema-evolution", "add-and-widen")))
              .routes()
              .get(0);
      FileBudget budget = new FileBudget(8, 64L << 20);
      TableWriter before =
          format.openWriter(table, route, upsert(0, 0, 1, "v0", null), budget).orElseThrow();
      for (long offset = 0; offset < 5; offset++) {
        before.write(upsert(0, offset, 1, "v" + offset, null));
      }
      DetachedFiles oldSchema = before.detach();
      Schema wider =
          SchemaBuilder.struct()
              .name("Row")
              .field("id", Schema.INT64_SCHEMA)
              .field("name", Schema.OPTIONAL_STRING_SCHEMA)
              .field("seq", Schema.OPTIONAL_INT64_SCHEMA)
              .field("email", Schema.OPTIONAL_STRING_SCHEMA)
              .build();
      SinkRecord newest =
          new SinkRecord(
              "items",
              0,
              KEY,
              new Struct(KEY).put("id", 1L),
              wider,
              new Struct(wider).put("id", 1L).put("name", "newest").put("email", "a@b"),
              5);
      format.evolve(
          table,
          io.streamhouse.connect.schema.RecordSchemas.rowOf(newest, route.input()).orElseThrow(),
          route.schemaEvolution());
      TableWriter after =
          format.openWriterAfter(before, table, route, newest, budget).orElseThrow();
      before.close();
      after.write(newest);
      PreparedFiles newSchema = after.prepare();
      after.close();
      TopicPartition tp = new TopicPartition("items", 0);
      CommitOutcome outcome =
          format.commit(
              table,
              1000,
              List.of(
                  new OfferedBatch(
                      "old", 0, Map.of(tp, new OffsetRange(0, 5)), oldSchema.close(), -1),
                  new OfferedBatch("new", 0, Map.of(tp, new OffsetRange(5, 6)), newSchema, -1)),
              true);
      assertThat(outcome.decisions().values()).containsOnly(BatchPlan.Decision.APPLY);
      assertThat(rows(format.table(table))).containsExactlyEntriesOf(Map.of(1L, "newest"));
    }
  }

  /**
   * Reading on after a hand-in: a task that takes over a partition writes a key again while the
   * batch its last owner handed in, with earlier rows of that key, is not committed yet. Its writer
   * must number the key above that batch's rows, which it only knows from the batch's files; a
   * writer numbering from the committed files would rank the newest row below them.
   */
  @Test
  void aWriterThatReadsOnAfterAHandedInBatchNumbersItsBucketsAboveThatBatch() throws Exception {
    readOnAfterAHandedInBatch(config(Map.of()));
  }

  @Test
  void aWriterThatReadsOnAfterAHandedInBatchNumbersAboveItWithDeletionVectorsToo()
      throws Exception {
    readOnAfterAHandedInBatch(
        config(Map.of("route.items.table-property.deletion-vectors.enabled", "true")));
  }

  private void readOnAfterAHandedInBatch(StreamhouseSinkConfig config) throws Exception {
    RouteSettings route = config.routes().get(0);
    TopicPartition tp = new TopicPartition("items", 0);
    try (PaimonFormat lastOwner = format(config);
        PaimonFormat nextOwner = format(config)) {
      OfferedBatch committed = batch(lastOwner, route, List.of(upsert(0, 0, 1, "c0", null)));
      assertThat(lastOwner.commit(table, 1000, List.of(committed), true).decisions().values())
          .containsOnly(BatchPlan.Decision.APPLY);
      List<SinkRecord> handedIn = new ArrayList<>();
      for (long offset = 1; offset <= 5; offset++) {
        handedIn.add(upsert(0, offset, 1, "v" + offset, null));
      }
      OfferedBatch handed = batch(lastOwner, route, handedIn);

      nextOwner.writeAfter(table, handed.files()).orElseThrow().prepareWriters();
      OfferedBatch after = batch(nextOwner, route, List.of(upsert(0, 6, 1, "newest", null)));
      CommitOutcome outcome =
          lastOwner.commit(
              table,
              1001,
              List.of(
                  new OfferedBatch(
                      "handed-in", 1, Map.of(tp, new OffsetRange(1, 6)), handed.files(), -1),
                  new OfferedBatch(
                      "after", 0, Map.of(tp, new OffsetRange(6, 7)), after.files(), -1)),
              true);

      assertThat(outcome.decisions().values()).containsOnly(BatchPlan.Decision.APPLY);
      assertThat(sequenceNumbers(after.files()).min().orElseThrow())
          .isGreaterThan(sequenceNumbers(handed.files()).max().orElseThrow());
      if (!lastOwner.table(table).coreOptions().deletionVectorsEnabled()) {
        // With deletion vectors a reader sees level-0 files only once compacted.
        assertThat(rows(lastOwner.table(table))).containsExactlyEntriesOf(Map.of(1L, "newest"));
      }
    }
  }

  private static java.util.stream.LongStream sequenceNumbers(PreparedFiles files) throws Exception {
    return CommitMessagesCodec.decode(files.payloadVersion(), files.payload()).stream()
        .flatMap(m -> ((CommitMessageImpl) m).newFilesIncrement().newFiles().stream())
        .flatMapToLong(
            f -> java.util.stream.LongStream.of(f.minSequenceNumber(), f.maxSequenceNumber()));
  }

  @Test
  void aHandedInBatchWhosePayloadCannotBeReadIsNotReadOnAfter() throws Exception {
    StreamhouseSinkConfig config = config(Map.of());
    RouteSettings route = config.routes().get(0);
    try (PaimonFormat format = format(config)) {
      batch(format, route, List.of(upsert(0, 0, 1, "c0", null))); // creates the table
      byte[] garbage = {0, 0, 0, 5, 1, 2, 3};
      assertThat(
              format.writeAfter(
                  table, new PreparedFiles(CommitMessagesCodec.VERSION, garbage, 1, 1, 7)))
          .isEmpty();
      assertThat(
              format.writeAfter(
                  new TableId("lake", List.of("db"), "missing"),
                  new PreparedFiles(CommitMessagesCodec.VERSION, garbage, 1, 1, 7)))
          .isEmpty();
    }
  }
}
