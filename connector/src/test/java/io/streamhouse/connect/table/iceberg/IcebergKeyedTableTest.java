package io.streamhouse.connect.table.iceberg;

import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.rows;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.tombstone;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.upsert;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.testing.LocalCatalogConfigs;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keyed Iceberg tables: upserts and tombstones leave exactly the latest row of each key, removed
 * rows go by position deletes (never equality deletes), a key changed twice in one batch leaves one
 * row, and a batch whose key index is out of date is rejected.
 */
class IcebergKeyedTableTest {
  private static final TopicPartition TP0 = new TopicPartition("orders", 0);
  private static final TopicPartition TP1 = new TopicPartition("orders", 1);

  @TempDir Path dir;
  private final TableId table = new TableId("local", List.of("default"), "orders");

  private StreamhouseSinkConfig config() {
    return config(2);
  }

  private StreamhouseSinkConfig config(int formatVersion) {
    Map<String, String> props = LocalCatalogConfigs.icebergOrders(dir);
    props.put("route.orders.partition-by", "bucket(4,id)");
    props.put("route.orders.primary-key", "id");
    props.put("route.orders.format-version", Integer.toString(formatVersion));
    return new StreamhouseSinkConfig(props);
  }

  private static PreparedFiles write(
      IcebergFormat format, TableId table, RouteSettings route, List<SinkRecord> records)
      throws Exception {
    TableWriter writer =
        format.openWriter(table, route, records.get(0), new FileBudget(8, 64L << 20)).orElseThrow();
    for (SinkRecord r : records) {
      writer.write(r);
    }
    PreparedFiles files = writer.prepare();
    writer.close();
    return files;
  }

  /**
   * Every delete of the current snapshot is by position, and each data file has at most one delete
   * file: a position delete file that names only it (v2) or a deletion vector (v3); some exist, so
   * the table is really keyed.
   */
  private static void assertDeletesByPosition(Table table, int formatVersion) throws Exception {
    int deletes = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        for (org.apache.iceberg.DeleteFile d : task.deletes()) {
          assertThat(d.content()).isEqualTo(FileContent.POSITION_DELETES);
          assertThat(d.format())
              .isEqualTo(
                  formatVersion >= 3
                      ? org.apache.iceberg.FileFormat.PUFFIN
                      : org.apache.iceberg.FileFormat.PARQUET);
          deletes++;
        }
        assertThat(task.deletes()).as("deletes of %s", task.file().location()).hasSizeLessThan(2);
        for (org.apache.iceberg.DeleteFile d : task.deletes()) {
          assertThat(org.apache.iceberg.util.ContentFileUtil.referencedDataFileLocation(d))
              .isEqualTo(task.file().location());
        }
      }
    }
    assertThat(deletes).isPositive();
  }

  @org.junit.jupiter.params.ParameterizedTest(name = "format version {0}")
  @org.junit.jupiter.params.provider.ValueSource(ints = {2, 3})
  void upsertsAndTombstonesLeaveTheLatestRowOfEachKeyByPositionDeletes(int formatVersion)
      throws Exception {
    StreamhouseSinkConfig config = config(formatVersion);
    RouteSettings route = config.routes().get(0);
    Random random = new Random(7);
    Map<Long, String> model = new HashMap<>();
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      TableWriter writer = null;
      long offset = 0;
      for (int round = 0; round < 5; round++) {
        long from = offset;
        List<SinkRecord> records = changes(random, 400, 100, from, model);
        offset += records.size();
        if (writer == null) {
          SinkRecord first = upsert(0, from, 1, "x");
          writer = format.openWriter(table, route, first, new FileBudget(8, 64L << 20)).get();
        }
        for (SinkRecord r : records) {
          writer.write(r);
        }
        assertThat(commitOne(format, round, from, offset, writer.prepare()))
            .isEqualTo(BatchPlan.Decision.APPLY);
        assertThat(rows(format.table(table))).as("round %d", round).isEqualTo(new TreeMap<>(model));
      }
      writer.close();
      assertDeletesByPosition(format.table(table), formatVersion);

      // Compaction applies the deletes; a batch prepared before a compaction that left no rewrite
      // map (another engine's) is refused, not wrong.
      long id = model.keySet().iterator().next();
      TableWriter stale =
          format
              .openWriter(table, route, upsert(0, offset, id, "x"), new FileBudget(8, 64L << 20))
              .get();
      for (long key : model.keySet()) {
        stale.write(upsert(0, offset, key, "stale"));
      }
      PreparedFiles staleFiles = stale.prepare();
      stale.close();
      IcebergFileCompactor.CompactionResult compacted =
          new IcebergFileCompactor()
              .compact(
                  format.table(table),
                  new IcebergFileCompactor.Settings(
                      2, null, 1L << 30, Integer.MAX_VALUE, null, null),
                  System.nanoTime() + 300_000_000_000L);
      assertThat(compacted.filesRemoved()).isPositive();
      assertThat(rows(format.table(table))).isEqualTo(new TreeMap<>(model));
      assertThat(commitOne(format, 8, offset, offset + 1, staleFiles))
          .isEqualTo(BatchPlan.Decision.REJECT);

      // A new writer reads its key index from the table: an update of an old key replaces it.
      PreparedFiles files = write(format, table, route, List.of(upsert(0, offset, id, "again")));
      assertThat(commitOne(format, 9, offset, offset + 1, files))
          .isEqualTo(BatchPlan.Decision.APPLY);
      model.put(id, "again");
      assertThat(rows(format.table(table))).isEqualTo(new TreeMap<>(model));
    }
  }

  /**
   * Rounds of upserts over few keys leave most rows of the data files deleted; the table says so
   * ({@code deletesDue}), and one maintenance pass rewrites every data file with deletes and drops
   * every position delete file and vector with them, v2's partition-wide position delete files
   * included; the next writer reads its index from the compacted table.
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "format version {0}")
  @org.junit.jupiter.params.provider.ValueSource(ints = {2, 3})
  void aTableWithManyDeletedRowsIsCompactedWithItsDeletesDropped(int formatVersion)
      throws Exception {
    StreamhouseSinkConfig config = config(formatVersion);
    RouteSettings route = config.routes().get(0);
    Random random = new Random(11);
    Map<Long, String> model = new HashMap<>();
    io.streamhouse.connect.config.MaintenanceSettings maintenance =
        new io.streamhouse.connect.config.MaintenanceSettings(
            true, 60_000, 60_000, 0, 1, true, 5, 1L << 30, 16L << 20, 0, 0.3, 0, 0);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      long offset = 0;
      for (int round = 0; round < 6; round++) {
        long from = offset;
        List<SinkRecord> records = changes(random, 300, 60, from, model);
        offset += records.size();
        assertThat(commitOne(format, round, from, offset, write(format, table, route, records)))
            .isEqualTo(BatchPlan.Decision.APPLY);
      }
      assertThat(DeletedRowShare.of(format.table(table).currentSnapshot()))
          .as("most rows are deleted")
          .isGreaterThanOrEqualTo(0.3);
      assertThat(format.deletesDue(table, maintenance)).isTrue();

      io.streamhouse.connect.protocol.MaintenanceReport report =
          format.maintain(
              table,
              maintenance,
              System.nanoTime() + 300_000_000_000L,
              io.streamhouse.connect.table.MaintenanceCheckpoints.NONE);

      Table compacted = format.table(table);
      compacted.refresh();
      Map<String, String> summary = compacted.currentSnapshot().summary();
      assertThat(report.filesRewritten()).isPositive();
      assertThat(summary)
          .containsEntry("total-delete-files", "0")
          .containsEntry("total-position-deletes", "0");
      assertThat(Long.parseLong(summary.get("total-records"))).isEqualTo(model.size());
      assertThat(rows(compacted)).isEqualTo(new TreeMap<>(model));
      assertThat(format.deletesDue(table, maintenance)).isFalse();

      // The next writer's index comes from the compacted files.
      long id = model.keySet().iterator().next();
      PreparedFiles files = write(format, table, route, List.of(upsert(0, offset, id, "after")));
      assertThat(commitOne(format, 9, offset, offset + 1, files))
          .isEqualTo(BatchPlan.Decision.APPLY);
      model.put(id, "after");
      assertThat(rows(format.table(table))).isEqualTo(new TreeMap<>(model));
    }
  }

  /**
   * A writer that lives through a compaction of the connector's maintenance moves its key index to
   * the rewritten files with the compaction's rewrite map when it prepares its next batch: that
   * batch is committed, not rejected, and the table still holds exactly the latest row of each key.
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "format version {0}")
  @org.junit.jupiter.params.provider.ValueSource(ints = {2, 3})
  void aWriterMovesItsIndexPastACompactionAndItsNextBatchIsCommitted(int formatVersion)
      throws Exception {
    StreamhouseSinkConfig config = config(formatVersion);
    RouteSettings route = config.routes().get(0);
    Random random = new Random(13);
    Map<Long, String> model = new HashMap<>();
    io.streamhouse.connect.config.MaintenanceSettings maintenance =
        new io.streamhouse.connect.config.MaintenanceSettings(
            true, 60_000, 60_000, 0, 1, true, 5, 1L << 30, 16L << 20, 0, 0.3, 0, 0);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      TableWriter writer =
          format.openWriter(table, route, upsert(0, 0, 1, "x"), new FileBudget(8, 64L << 20)).get();
      long offset = 0;
      for (int round = 0; round < 8; round++) {
        long from = offset;
        List<SinkRecord> records = changes(random, 200, 80, from, model);
        offset += records.size();
        for (SinkRecord r : records) {
          writer.write(r);
        }
        PreparedFiles files = writer.prepare();
        if (round == 3) {
          // A batch prepared before the compaction and committed after it: the coordinator moves
          // its positions with the rewrite map.
          compact(format, maintenance);
        }
        assertThat(commitOne(format, round, from, offset, files))
            .as("round %d", round)
            .isEqualTo(BatchPlan.Decision.APPLY);
        if (round == 5) {
          // Rows the writer wrote before the compaction change after it: the writer moves its index
          // with the rewrite map when it prepares its next batch.
          compact(format, maintenance);
          assertThat(format.table(table).currentSnapshot().summary())
              .containsEntry("total-delete-files", "0");
        }
        assertThat(rows(format.table(table))).as("round %d", round).isEqualTo(new TreeMap<>(model));
      }
      writer.close();
      assertDeletesByPosition(format.table(table), formatVersion);
    }
  }

  /**
   * {@code count} random changes over keys {@code [0, keys)} from offset {@code from} of partition
   * 0, a fifth of them tombstones; {@code model} follows them.
   */
  private static List<SinkRecord> changes(
      Random random, int count, int keys, long from, Map<Long, String> model) {
    List<SinkRecord> records = new java.util.ArrayList<>(count);
    for (long offset = from; offset < from + count; offset++) {
      long id = random.nextInt(keys);
      if (random.nextInt(5) == 0) {
        records.add(tombstone(0, offset, id));
        model.remove(id);
      } else {
        records.add(upsert(0, offset, id, "n" + offset));
        model.put(id, "n" + offset);
      }
    }
    return records;
  }

  /** Offers one batch of partition 0's offsets {@code [from, to)} in a commit; its decision. */
  private BatchPlan.Decision commitOne(
      IcebergFormat format, long commitId, long from, long to, PreparedFiles files) {
    return KeyedTableFixture.commitOne(format, commitId, TP0, from, to, files);
  }

  /**
   * A task's key index holds the rows of every key of the table, those of other tasks' partitions
   * too. When another task replaces them and a compaction drops the old rows, the index still moves
   * past the compaction (those keys leave it), instead of staying behind it until its base snapshot
   * expires.
   */
  @Test
  void anIndexHoldingRowsAnotherTaskReplacedMovesPastTheCompaction() throws Exception {
    StreamhouseSinkConfig config = config(2);
    RouteSettings route = config.routes().get(0);
    io.streamhouse.connect.config.MaintenanceSettings maintenance =
        new io.streamhouse.connect.config.MaintenanceSettings(
            true, 60_000, 60_000, 0, 1, true, 5, 1L << 30, 16L << 20, 0, 0.3, 0, 0);
    Map<Long, String> model = new HashMap<>();
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      List<SinkRecord> first = new java.util.ArrayList<>();
      List<SinkRecord> replaced = new java.util.ArrayList<>();
      for (int i = 0; i < 20; i++) {
        first.add(upsert(1, i, 100 + i, "b" + i));
        replaced.add(upsert(1, 20 + i, 100 + i, "c" + i));
        model.put(100L + i, "c" + i);
      }
      assertThat(
              KeyedTableFixture.commitOne(
                  format, 1, TP1, 0, 20, write(format, table, route, first)))
          .isEqualTo(BatchPlan.Decision.APPLY);
      // The writer of partition 0 opens now: its index holds partition 1's rows.
      TableWriter writer =
          format.openWriter(table, route, upsert(0, 0, 1, "x"), new FileBudget(8, 64L << 20)).get();
      assertThat(
              KeyedTableFixture.commitOne(
                  format, 2, TP1, 20, 40, write(format, table, route, replaced)))
          .isEqualTo(BatchPlan.Decision.APPLY);
      compact(format, maintenance); // drops partition 1's first rows

      for (int i = 0; i < 10; i++) {
        writer.write(upsert(0, i, i, "a" + i));
        model.put((long) i, "a" + i);
      }
      PreparedFiles files = writer.prepare();
      assertThat(((IcebergKeyedTableWriter) writer).base().snapshot())
          .as("the index moved past the compaction")
          .isEqualTo(format.table(table).currentSnapshot().snapshotId());
      assertThat(KeyedTableFixture.commitOne(format, 3, TP0, 0, 10, files))
          .isEqualTo(BatchPlan.Decision.APPLY);
      writer.close();
      assertThat(rows(format.table(table))).isEqualTo(new TreeMap<>(model));
    }
  }

  /** One maintenance pass that compacts the keyed table and leaves a rewrite map. */
  private void compact(
      IcebergFormat format, io.streamhouse.connect.config.MaintenanceSettings maintenance) {
    assertThat(
            format
                .maintain(
                    table,
                    maintenance,
                    System.nanoTime() + 300_000_000_000L,
                    io.streamhouse.connect.table.MaintenanceCheckpoints.NONE)
                .filesRewritten())
        .isPositive();
    assertThat(format.table(table).currentSnapshot().summary())
        .containsKey("streamhouse.c.rewrite-map");
  }

  /**
   * 20,000 mutations of a real keyed batch (data files, position deletes, the data files they point
   * into, writer and base state; bit flips, cuts, splices, overwritten numbers): each decodes or
   * ends in the codec's typed rejection, never in another exception.
   */
  @Test
  void hostileKeyedBatchPayloadsEndInATypedRejection() throws Exception {
    StreamhouseSinkConfig config = config(2);
    RouteSettings route = config.routes().get(0);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      List<SinkRecord> first = new java.util.ArrayList<>();
      List<SinkRecord> second = new java.util.ArrayList<>();
      for (int i = 0; i < 100; i++) {
        first.add(upsert(0, i, i % 20, "a" + i));
        second.add(upsert(0, 100 + i, i % 20, "b" + i));
      }
      assertThat(commitOne(format, 1, 0, 100, write(format, table, route, first)))
          .isEqualTo(BatchPlan.Decision.APPLY);
      PreparedFiles real = write(format, table, route, second);
      Map<Integer, org.apache.iceberg.PartitionSpec> specs = format.table(table).specs();
      assertThat(real.payloadVersion()).isEqualTo(KeyedFilesCodec.VERSION);
      KeyedFilesCodec.KeyedFiles decoded = KeyedFilesCodec.decode(real.payload(), specs);
      assertThat(decoded.deletes()).as("the real batch deletes rows").isNotEmpty();
      assertThat(decoded.referenced()).isNotEmpty();
      assertThat(format.writeAfter(table, real))
          .as("a next owner's key index would not know the rows of a keyed batch not decided yet")
          .isEmpty();

      io.streamhouse.connect.testing.Mutations mutations =
          new io.streamhouse.connect.testing.Mutations(11);
      int refused = 0;
      for (int i = 0; i < 20_000; i++) {
        try {
          KeyedFilesCodec.decode(mutations.mutate(real.payload()), specs);
        } catch (DataFilesCodec.InvalidDataFilesException expected) {
          refused++;
        } catch (Throwable other) {
          throw new AssertionError("case " + i + " ended in " + other, other);
        }
      }
      assertThat(refused).isGreaterThan(10_000);
    }
  }

  @Test
  void aBatchWhoseIndexMissedAnotherWritersRowsIsRejected() throws Exception {
    StreamhouseSinkConfig config = config();
    RouteSettings route = config.routes().get(0);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      PreparedFiles first = write(format, table, route, List.of(upsert(1, 0, 1, "a")));
      format.commit(
          table,
          1,
          List.of(new OfferedBatch("b0", 0, Map.of(TP1, new OffsetRange(0, 1)), first, 0)),
          true);
      // Two writers read their index at the same snapshot; both write key 1 of partition 1.
      TableWriter stale =
          format.openWriter(table, route, upsert(1, 1, 1, "b"), new FileBudget(8, 64L << 20)).get();
      TableWriter winner =
          format.openWriter(table, route, upsert(1, 1, 1, "c"), new FileBudget(8, 64L << 20)).get();
      winner.write(upsert(1, 1, 1, "c"));
      PreparedFiles won = winner.prepare();
      stale.write(upsert(1, 1, 1, "b"));
      stale.write(upsert(1, 2, 1, "d"));
      PreparedFiles lost = stale.prepare();
      assertThat(
              format
                  .commit(
                      table,
                      2,
                      List.of(new OfferedBatch("w", 1, Map.of(TP1, new OffsetRange(1, 2)), won, 0)),
                      true)
                  .decisions())
          .containsEntry("w", BatchPlan.Decision.APPLY);
      // The stale batch covers [1, 3): it overlaps, so contiguity alone would reject it; offer its
      // continuation as if it had started where the table is now.
      assertThat(
              format
                  .commit(
                      table,
                      3,
                      List.of(
                          new OfferedBatch("s", 0, Map.of(TP1, new OffsetRange(2, 3)), lost, 0)),
                      true)
                  .decisions())
          .containsEntry("s", BatchPlan.Decision.REJECT);
      assertThat(rows(format.table(table))).containsExactlyEntriesOf(Map.of(1L, "c"));
      stale.close();
      winner.close();
    }
  }
}
