package io.streamhouse.connect.table.iceberg;

import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.TABLE;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.commitOne;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.rows;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.tombstone;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.upsert;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.writer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.testing.OutsideWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Types;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Keyed tables that other engines write too (docs/iceberg-primary-key-tables.md, "Outside
 * writers"): whatever another writer committed, a later change of a key by the connector replaces
 * whatever row the table holds for it, the table never holds a key twice, and a batch whose
 * positions are out of date is rejected (its task reads its index again), never committed wrong and
 * never retried to exhaustion. The other writer is Iceberg's own Java API ({@link OutsideWriter}).
 */
class IcebergKeyedOutsideWritersTest {
  private static final TopicPartition TP0 = new TopicPartition("orders", 0);
  private static final TopicPartition TP1 = new TopicPartition("orders", 1);

  @TempDir Path dir;

  private final Map<Long, String> model = new TreeMap<>();

  /** Keys 0..count-1 committed from partition 0's offsets [0, count). */
  private void seed(IcebergFormat format, StreamhouseSinkConfig config, int count)
      throws Exception {
    TableWriter writer = writer(format, config);
    for (long id = 0; id < count; id++) {
      writer.write(upsert(0, id, id, "s" + id));
      model.put(id, "s" + id);
    }
    assertThat(commitOne(format, 1, TP0, 0, count, writer.prepare()))
        .isEqualTo(BatchPlan.Decision.APPLY);
    writer.close();
  }

  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void outsideUpdatesDeletesAndAppendsBeforeABatchIsPreparedAreFollowed(int formatVersion)
      throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config, 20);
      TableWriter writer = writer(format, config);
      writer.write(upsert(0, 20, 1, "c1"));
      writer.write(upsert(0, 21, 2, "c2"));
      writer.write(tombstone(0, 22, 3));
      OutsideWriter outside = new OutsideWriter(format.table(TABLE));
      outside.update(Map.of(1L, "o1", 5L, "o5")); // 1: the batch's change comes later
      outside.delete(Set.of(6L));
      outside.insertAgain(Map.of(3L, "o3", 7L, "o7")); // 3: the batch deleted it; 7: a second row
      model.putAll(Map.of(1L, "c1", 2L, "c2", 5L, "o5", 7L, "o7"));
      model.remove(3L);
      model.remove(6L);

      assertThat(commitOne(format, 2, TP0, 20, 23, writer.prepare()))
          .as("the writer followed the outside snapshots: its batch commits")
          .isEqualTo(BatchPlan.Decision.APPLY);
      assertThat(rows(format.table(TABLE))).isEqualTo(model);

      // The outside writer's rows are the index's now: a change of their keys replaces them.
      writer.write(upsert(0, 23, 5, "c5"));
      writer.write(tombstone(0, 24, 7));
      model.put(5L, "c5");
      model.remove(7L);
      assertThat(commitOne(format, 3, TP0, 23, 25, writer.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      writer.close();
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      assertNoEqualityDeletes(format.table(TABLE));
    }
  }

  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void anOutsideCommitAfterABatchWasPreparedRejectsItAndTheReplayReplacesTheOutsideRow(
      int formatVersion) throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config, 10);
      TableWriter writer = writer(format, config);
      writer.write(upsert(0, 10, 1, "c1"));
      writer.write(upsert(0, 11, 7, "c7"));
      PreparedFiles files = writer.prepare();
      writer.close();
      new OutsideWriter(format.table(TABLE)).update(Map.of(1L, "o1", 7L, "o7"));
      assertThat(commitOne(format, 2, TP0, 10, 12, files))
          .as("its index does not know the outside writer's rows")
          .isEqualTo(BatchPlan.Decision.REJECT);
      model.putAll(Map.of(1L, "o1", 7L, "o7"));
      assertThat(rows(format.table(TABLE))).isEqualTo(model);

      TableWriter again = writer(format, config); // the task's replay reads its index again
      again.write(upsert(0, 10, 1, "c1"));
      again.write(upsert(0, 11, 7, "c7"));
      assertThat(commitOne(format, 3, TP0, 10, 12, again.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      again.close();
      model.putAll(Map.of(1L, "c1", 7L, "c7"));
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
    }
  }

  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void rewritesAndCopyOnWriteUpdatesOfAnotherEngineAreFollowed(int formatVersion) throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config, 30);
      TableWriter writer = writer(format, config);
      long offset = 30;
      for (long id = 0; id < 10; id++) {
        writer.write(upsert(0, offset++, id, "a" + id));
        model.put(id, "a" + id);
      }
      assertThat(commitOne(format, 2, TP0, 30, offset, writer.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      long from = offset;
      for (long id = 0; id < 5; id++) {
        writer.write(upsert(0, offset++, id, "b" + id)); // deletes rows the rewrite moves
        model.put(id, "b" + id);
      }
      new OutsideWriter(format.table(TABLE)).rewriteAll();
      assertThat(commitOne(format, 3, TP0, from, offset, writer.prepare()))
          .as("a rewrite_data_files by another engine")
          .isEqualTo(BatchPlan.Decision.APPLY);
      assertThat(rows(format.table(TABLE))).isEqualTo(model);

      from = offset;
      writer.write(upsert(0, offset++, 11, "c11"));
      writer.write(tombstone(0, offset++, 12));
      new OutsideWriter(format.table(TABLE))
          .copyOnWrite(Map.of(11L, "w11", 12L, "w12", 15L, "w15"));
      model.putAll(Map.of(11L, "c11", 15L, "w15"));
      model.remove(12L);
      assertThat(commitOne(format, 4, TP0, from, offset, writer.prepare()))
          .as("a copy-on-write update by another engine")
          .isEqualTo(BatchPlan.Decision.APPLY);
      writer.close();
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      assertNoEqualityDeletes(format.table(TABLE));
    }
  }

  /**
   * A key that came from two Kafka partitions, written by two writers whose indexes were read at
   * the same snapshot: the second batch deletes the row the first deleted already. It is rejected
   * (not folded in, which would leave the first batch's row live beside its own), and the replay,
   * which reads its index again, replaces the first batch's row.
   */
  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void aBatchDeletingARowTheTableDeletedAlreadyIsRejectedNotRetried(int formatVersion)
      throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config, 10);
      TableWriter first = writer(format, config);
      TableWriter second = writer(format, config);
      first.write(upsert(1, 0, 1, "p1"));
      assertThat(commitOne(format, 2, TP1, 0, 1, first.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      second.write(upsert(0, 10, 1, "p0"));
      assertThat(commitOne(format, 3, TP0, 10, 11, second.prepare()))
          .isEqualTo(BatchPlan.Decision.REJECT);
      model.put(1L, "p1");
      assertThat(rows(format.table(TABLE))).isEqualTo(model);

      TableWriter replay = writer(format, config);
      replay.write(upsert(0, 10, 1, "p0"));
      assertThat(commitOne(format, 4, TP0, 10, 11, replay.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      model.put(1L, "p0");
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      first.close();
      second.close();
      replay.close();
    }
  }

  /**
   * The same key on two partitions, updated by two writers whose batches come in one commit: both
   * delete the key's row, each adds its own. The later batch is rejected (folding both in would
   * leave two rows), and its replay replaces the earlier batch's row.
   */
  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void twoWritersDeletingOneRowInOneCommitLeaveOneRow(int formatVersion) throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config, 10);
      TableWriter first = writer(format, config);
      TableWriter second = writer(format, config);
      first.write(upsert(1, 0, 1, "p1"));
      second.write(upsert(0, 10, 1, "p0"));
      Map<String, BatchPlan.Decision> decisions =
          format
              .commit(
                  TABLE,
                  2,
                  List.of(
                      new io.streamhouse.connect.protocol.OfferedBatch(
                          "first",
                          1,
                          Map.of(TP1, new io.streamhouse.connect.protocol.OffsetRange(0, 1)),
                          first.prepare(),
                          0),
                      new io.streamhouse.connect.protocol.OfferedBatch(
                          "second",
                          0,
                          Map.of(TP0, new io.streamhouse.connect.protocol.OffsetRange(10, 11)),
                          second.prepare(),
                          0)),
                  true)
              .decisions();
      assertThat(decisions.values())
          .containsExactlyInAnyOrder(BatchPlan.Decision.APPLY, BatchPlan.Decision.REJECT);
      boolean firstWon = decisions.get("first") == BatchPlan.Decision.APPLY;
      model.put(1L, firstWon ? "p1" : "p0");
      assertThat(rows(format.table(TABLE))).isEqualTo(model);

      TableWriter replay = writer(format, config);
      if (firstWon) {
        replay.write(upsert(0, 10, 1, "p0"));
        assertThat(commitOne(format, 3, TP0, 10, 11, replay.prepare()))
            .isEqualTo(BatchPlan.Decision.APPLY);
        model.put(1L, "p0");
      } else {
        replay.write(upsert(1, 0, 1, "p1"));
        assertThat(commitOne(format, 3, TP1, 0, 1, replay.prepare()))
            .isEqualTo(BatchPlan.Decision.APPLY);
        model.put(1L, "p1");
      }
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      first.close();
      second.close();
      replay.close();
    }
  }

  /**
   * A table upgraded from format v2 whose partition has position delete files of another writer
   * (naming two data files): the deletion vector the connector writes for one of those files takes
   * their positions in, since readers ignore position delete files once a data file has a vector.
   */
  @Test
  void aDeletionVectorTakesInThePartitionsPositionDeletesOfAnUpgradedTable() throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, 2);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config, 20);
      TableWriter more = writer(format, config);
      for (long id = 20; id < 40; id++) {
        more.write(upsert(0, id, id, "s" + id));
        model.put(id, "s" + id);
      }
      assertThat(commitOne(format, 2, TP0, 20, 40, more.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      more.close();
      // Two keys of one bucket, one in each commit's file, and a third of that bucket to update.
      List<Long> first = inBucket(0, 20);
      List<Long> second = inBucket(20, 40);
      long deletedOld = first.get(0);
      long updated = first.get(1);
      long deletedNew = second.get(0);
      new OutsideWriter(format.table(TABLE)).delete(Set.of(deletedOld, deletedNew));
      model.remove(deletedOld);
      model.remove(deletedNew);
      Table table = format.table(TABLE);
      table.updateProperties().set("format-version", "3").commit();

      TableWriter writer = writer(format, config);
      writer.write(upsert(0, 40, updated, "v3"));
      model.put(updated, "v3");
      assertThat(commitOne(format, 3, TP0, 40, 41, writer.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      writer.close();
      assertThat(rows(format.table(TABLE)))
          .as("the outside writer's deletes still apply")
          .isEqualTo(model);
    }
  }

  @Test
  void identifierFieldsChangedOutsideTheConnectorDropTheBatchNamingTheTable() throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, 2);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config, 5);
      TableWriter writer = writer(format, config);
      writer.write(upsert(0, 5, 1, "c1"));
      format.table(TABLE).updateSchema().setIdentifierFields("id", "name").commit();
      assertThatThrownBy(writer::prepare)
          .hasMessageContaining("identifier fields of table")
          .hasMessageContaining("orders")
          .hasMessageContaining("a restart of the task reads the key index by the new key");
      writer.close();
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
    }
  }

  /**
   * The check users run ({@link KeyedTableCheck}) names the keys an outside append doubled, with
   * their row counts, and passes once the connector's next change of them left one row each.
   */
  @Test
  void theKeyedTableCheckNamesDoubledKeysUntilTheyHaveOneRowAgain() throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, 3);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config, 10);
      assertThat(KeyedTableCheck.check(format.table(TABLE)).oneRowPerKey()).isTrue();
      new OutsideWriter(format.table(TABLE)).insertAgain(Map.of(4L, "o4", 8L, "o8"));
      KeyedTableCheck.Report doubled = KeyedTableCheck.check(format.table(TABLE));
      assertThat(doubled.liveRows()).isEqualTo(12);
      assertThat(doubled.keys()).isEqualTo(10);
      assertThat(doubled.duplicatedKeys()).isEqualTo(2);
      assertThat(doubled.duplicated())
          .containsOnly(Map.entry("{id=4}", 2L), Map.entry("{id=8}", 2L));

      TableWriter writer = writer(format, config);
      writer.write(upsert(0, 10, 4, "c4"));
      writer.write(tombstone(0, 11, 8));
      assertThat(commitOne(format, 2, TP0, 10, 12, writer.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      writer.close();
      KeyedTableCheck.Report after = KeyedTableCheck.check(format.table(TABLE));
      assertThat(after.oneRowPerKey()).as("%s", after).isTrue();
      assertThat(after.liveRows()).isEqualTo(9);
    }
  }

  /** The keys of {@code [from, to)} that fall in the first bucket of {@code bucket(4,id)}. */
  private static List<Long> inBucket(long from, long to) {
    var bucket = Transforms.bucket(4).bind(Types.LongType.get());
    List<Long> ids = new ArrayList<>();
    for (long id = from; id < to; id++) {
      if (bucket.apply(id).equals(bucket.apply(0L))) {
        ids.add(id);
      }
    }
    return ids;
  }

  private static void assertNoEqualityDeletes(Table table) throws Exception {
    table.refresh();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        task.deletes()
            .forEach(d -> assertThat(d.content()).isEqualTo(FileContent.POSITION_DELETES));
      }
    }
  }
}
