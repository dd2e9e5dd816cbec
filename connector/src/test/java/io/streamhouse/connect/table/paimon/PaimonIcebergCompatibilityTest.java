package io.streamhouse.connect.table.paimon;

import static io.streamhouse.connect.table.paimon.ItemsTableFixture.ROW;
import static io.streamhouse.connect.table.paimon.ItemsTableFixture.batch;
import static io.streamhouse.connect.table.paimon.ItemsTableFixture.tombstone;
import static io.streamhouse.connect.table.paimon.ItemsTableFixture.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.CompactionResult;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.testing.LocalCatalogConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code route.<name>.iceberg-compatible}: tables written and compacted through the connector's
 * Paimon format, read back with Iceberg's own Java reader from the metadata Paimon writes at the
 * table's path, against Paimon's read of the same snapshot.
 */
class PaimonIcebergCompatibilityTest {
  @TempDir Path dir;
  private final TableId table = new TableId("lake", List.of("db"), "items");
  private long offset = 20; // of the next record of changes(): the inserts take 0 to 19

  private StreamhouseSinkConfig config(Map<String, String> extra) {
    Map<String, String> props = LocalCatalogConfigs.paimonItems(dir, extra);
    return new StreamhouseSinkConfig(props);
  }

  private PaimonFormat format(StreamhouseSinkConfig config) {
    return new PaimonFormat(
        config.catalog("lake"), config.connectorName(), 32L << 20, dir.resolve("spill"));
  }

  /** Every row Paimon reads, as "id|name|seq", sorted. */
  static List<String> paimonRows(FileStoreTable t) throws Exception {
    ReadBuilder read = t.newReadBuilder();
    List<String> rows = new ArrayList<>();
    try (RecordReader<InternalRow> reader =
        read.newRead().createReader(read.newScan().plan().splits())) {
      reader.forEachRemaining(
          row ->
              rows.add(
                  row.getLong(0)
                      + "|"
                      + (row.isNullAt(1) ? null : row.getString(1).toString())
                      + "|"
                      + (row.isNullAt(2) ? null : row.getLong(2))));
    }
    rows.sort(null);
    return rows;
  }

  /** The Iceberg table Paimon keeps at the table's path, loaded fresh. */
  static Table iceberg(FileStoreTable t) {
    return new HadoopTables(new Configuration()).load(t.location().toString());
  }

  /** Every row Iceberg's generic reader reads, as "id|name|seq", sorted. */
  static List<String> icebergRows(FileStoreTable t) throws Exception {
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(iceberg(t)).build()) {
      for (Record r : records) {
        rows.add(r.getField("id") + "|" + r.getField("name") + "|" + r.getField("seq"));
      }
    }
    rows.sort(null);
    return rows;
  }

  private static List<String> rowsOf(Map<Long, String> model) {
    List<String> rows = new ArrayList<>();
    model.forEach((id, name) -> rows.add(id + "|" + name + "|null"));
    rows.sort(null);
    return rows;
  }

  /** Runs a commit's compaction jobs as a task does and commits the result. */
  private Map<String, BatchPlan.Decision> compact(
      PaimonFormat format, CommitOutcome written, long commitId) {
    assertThat(written.compactions()).isNotEmpty();
    PreparedFiles result = format.compact(table, written.compactions());
    Map<String, BatchPlan.Decision> decisions =
        format.commitCompactions(
            table, commitId, List.of(new CompactionResult("compact-" + commitId, 1, result)));
    assertThat(decisions).containsValue(BatchPlan.Decision.APPLY);
    return decisions;
  }

  private static SinkRecord keyless(long at, long id, String name) {
    return new SinkRecord(
        "items", 0, null, null, ROW, new Struct(ROW).put("id", id).put("name", name), at);
  }

  @Test
  void anAppendTableShowsEveryCommitToIcebergReaders() throws Exception {
    StreamhouseSinkConfig config = config(Map.of("route.items.iceberg-compatible", "true"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      List<SinkRecord> first = new ArrayList<>();
      for (long i = 0; i < 10; i++) {
        first.add(keyless(i, i % 4, "n" + i)); // duplicates of an id: an append table keeps all
      }
      format.commit(table, 1000, List.of(batch(format, table, route, first)), true);
      FileStoreTable t = format.table(table);
      assertThat(t.primaryKeys()).isEmpty();
      assertThat(t.options())
          .containsEntry("metadata.iceberg.storage", "table-location")
          .doesNotContainKeys("deletion-vectors.enabled", "metadata.iceberg.format-version");
      assertThat(
              Files.exists(
                  Path.of(t.location().toUri().getPath()).resolve("metadata/version-hint.text")))
          .isTrue();
      assertThat(icebergRows(t)).hasSize(10).isEqualTo(paimonRows(t));

      List<SinkRecord> second = List.of(keyless(10, 1, "n10"), keyless(11, 7, null));
      format.commit(table, 2000, List.of(batch(format, table, route, second)), true);
      t = format.table(table);
      Table iceberg = iceberg(t);
      assertThat(iceberg.currentSnapshot().snapshotId())
          .as("Iceberg snapshot id = Paimon snapshot id")
          .isEqualTo(t.snapshotManager().latestSnapshotId());
      assertThat(iceberg.schema().columns())
          .extracting(org.apache.iceberg.types.Types.NestedField::name)
          .containsExactly("id", "name", "seq");
      assertThat(icebergRows(t)).hasSize(12).contains("7|null|null").isEqualTo(paimonRows(t));
    }
  }

  /**
   * {@code metadata.iceberg.storage=hadoop-catalog} (a table property) puts the metadata where an
   * Iceberg Hadoop catalog on {@code <warehouse>/iceberg} finds it as {@code <db>.<table>}, the
   * catalog Spark's {@code type=hadoop} uses.
   */
  @Test
  void theHadoopCatalogLayoutIsReadThroughAnIcebergHadoopCatalog() throws Exception {
    StreamhouseSinkConfig config =
        config(
            Map.of(
                "route.items.iceberg-compatible", "true",
                "route.items.table-property.metadata.iceberg.storage", "hadoop-catalog"));
    try (PaimonFormat format = format(config)) {
      List<SinkRecord> records = List.of(keyless(0, 1, "a"), keyless(1, 2, "b"));
      format.commit(
          table, 1000, List.of(batch(format, table, config.routes().get(0), records)), true);
      FileStoreTable t = format.table(table);
      assertThat(Path.of(t.location().toUri().getPath()).resolve("metadata")).doesNotExist();
      org.apache.iceberg.hadoop.HadoopCatalog catalog =
          new org.apache.iceberg.hadoop.HadoopCatalog(
              new Configuration(), dir.resolve("warehouse/iceberg").toString());
      List<String> rows = new ArrayList<>();
      try (CloseableIterable<Record> read =
          IcebergGenerics.read(
                  catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.of("db", "items")))
              .build()) {
        read.forEach(r -> rows.add(r.getField("id") + "|" + r.getField("name") + "|null"));
      }
      rows.sort(null);
      assertThat(rows).containsExactly("1|a|null", "2|b|null").isEqualTo(paimonRows(t));
    }
  }

  /**
   * The default for primary-key tables: Paimon exports only top-level files, which only a full
   * compaction writes, so Iceberg sees the table as of its last full compaction: nothing before the
   * first, then exactly what Paimon read right after it, until the next.
   */
  @Test
  void aPrimaryKeyTableShowsIcebergReadersItsRowsAsOfTheLastFullCompaction() throws Exception {
    assertThat(config(Map.of("route.items.iceberg-compatible", "true")).routes().get(0))
        .satisfies(r -> assertThat(r.icebergCompatible()).isTrue());
    StreamhouseSinkConfig config =
        config(
            Map.of(
                "route.items.iceberg-compatible", "true",
                "route.items.table-property.full-compaction.delta-commits", "2"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      Map<Long, String> model = new TreeMap<>();
      List<SinkRecord> inserts = new ArrayList<>();
      for (long i = 0; i < 20; i++) {
        inserts.add(upsert(0, i, i, "v" + i, null));
        model.put(i, "v" + i);
      }
      CommitOutcome written =
          format.commit(table, 1000, List.of(batch(format, table, route, inserts)), true);
      FileStoreTable t = format.table(table);
      assertThat(t.options())
          .containsEntry("metadata.iceberg.storage", "table-location")
          .containsEntry("full-compaction.delta-commits", "2")
          .doesNotContainKeys("deletion-vectors.enabled", "metadata.iceberg.format-version");
      assertThat(((HasTableOperations) iceberg(t)).operations().current().formatVersion())
          .isEqualTo(2);
      assertThat(paimonRows(t))
          .as("merge on read: Paimon sees the commit")
          .isEqualTo(rowsOf(model));
      // The first Iceberg metadata is built from a scan of the whole table, which exports every
      // bucket whose files need no merging (here each bucket holds one file of the first commit);
      // from then on only files written at the top level are added.
      List<String> shown = rowsOf(model);
      assertThat(icebergRows(t)).as("the first commit, as the metadata began").isEqualTo(shown);
      runCompaction(format, written, 1001);
      assertThat(icebergRows(format.table(table))).isEqualTo(shown);

      // Updates (one key twice), deletes and new keys; the second commit: a full compaction.
      written = format.commit(table, 2000, List.of(changes(format, route, model, 20, 0)), true);
      t = format.table(table);
      assertThat(paimonRows(t)).isEqualTo(rowsOf(model)).isNotEqualTo(shown);
      assertThat(icebergRows(t)).as("level 0 is not exported").isEqualTo(shown);
      long start = System.nanoTime();
      compact(format, written, 2001);
      long fullMs = (System.nanoTime() - start) / 1_000_000;
      t = format.table(table);
      List<String> fullyCompacted = rowsOf(model);
      assertThat(paimonRows(t)).hasSize(20).isEqualTo(fullyCompacted);
      assertThat(icebergRows(t)).isEqualTo(fullyCompacted);
      assertThat(iceberg(t).currentSnapshot().snapshotId())
          .as("Iceberg snapshot id = Paimon snapshot id")
          .isEqualTo(t.snapshotManager().latestSnapshotId());

      // The third commit changes the table again: Iceberg keeps showing the full compaction's rows.
      written = format.commit(table, 3000, List.of(changes(format, route, model, 40, 10)), true);
      runCompaction(format, written, 3001);
      t = format.table(table);
      assertThat(paimonRows(t)).isEqualTo(rowsOf(model)).isNotEqualTo(fullyCompacted);
      assertThat(icebergRows(t)).isEqualTo(fullyCompacted);

      written = format.commit(table, 4000, List.of(changes(format, route, model, 60, 20)), true);
      compact(format, written, 4001);
      t = format.table(table);
      assertThat(paimonRows(t)).isEqualTo(rowsOf(model));
      assertThat(icebergRows(t)).isEqualTo(rowsOf(model));
      System.out.printf(
          "iceberg-compatible primary-key table: a full compaction of 2 buckets took %d ms%n",
          fullMs);
    }
  }

  /**
   * Upserts of 5 keys from {@code first} (the first one twice), deletes of the next 5, and 5 new
   * keys from {@code fresh}, applied to {@code model}: the batch of a task writing them.
   */
  private OfferedBatch changes(
      PaimonFormat format, RouteSettings route, Map<Long, String> model, long fresh, long first)
      throws Exception {
    List<SinkRecord> changes = new ArrayList<>();
    for (long i = first; i < first + 5; i++) {
      String name = "u" + offset;
      changes.add(upsert(0, offset++, i, name, null));
      model.put(i, name);
    }
    for (long i = first + 5; i < first + 10; i++) {
      changes.add(tombstone(0, offset++, i));
      model.remove(i);
    }
    for (long i = fresh; i < fresh + 5; i++) {
      changes.add(upsert(0, offset++, i, "v" + i, null));
      model.put(i, "v" + i);
    }
    changes.add(upsert(0, offset++, first, "twice", null));
    model.put(first, "twice");
    return batch(format, table, route, changes);
  }

  /** Runs a commit's compaction jobs, if it has any, and commits their result. */
  private void runCompaction(PaimonFormat format, CommitOutcome written, long commitId) {
    if (!written.compactions().isEmpty()) {
      compact(format, written, commitId);
    }
  }

  /**
   * Paimon's near-real-time mode for primary-key tables (deletion vectors, exported as Iceberg v3
   * deletion vectors for every file above level 0) is not usable with Paimon 1.4.2: its v3 metadata
   * lacks {@code next-row-id}, which Iceberg 1.9+ requires (apache/paimon#8972, fixed on Paimon
   * main by #9244/#9245). When this test fails, a Paimon upgrade has fixed it and
   * iceberg-compatible can turn the mode on.
   */
  @Test
  void paimonDeletionVectorsInIcebergV3MetadataCannotBeReadByIceberg112() throws Exception {
    StreamhouseSinkConfig config =
        config(
            Map.of(
                "route.items.iceberg-compatible", "true",
                "route.items.table-property.deletion-vectors.enabled", "true",
                "route.items.table-property.deletion-vectors.bitmap64", "true",
                "route.items.table-property.metadata.iceberg.format-version", "3"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      Map<Long, String> model = new TreeMap<>();
      List<SinkRecord> inserts = new ArrayList<>();
      for (long i = 0; i < 20; i++) {
        inserts.add(upsert(0, i, i, "v" + i, null));
        model.put(i, "v" + i);
      }
      CommitOutcome written =
          format.commit(table, 1000, List.of(batch(format, table, route, inserts)), true);
      compact(format, written, 1001);
      FileStoreTable t = format.table(table);
      assertThat(paimonRows(t)).isEqualTo(rowsOf(model));
      Path metadata = Path.of(t.location().toUri().getPath()).resolve("metadata");
      assertThat(metadata.resolve("version-hint.text")).exists();
      assertThatThrownBy(() -> iceberg(format.table(table)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("next-row-id");
    }
  }

  /**
   * Off by default: no Iceberg metadata. A table created without it is left alone when the route
   * turns the option on; an ALTER TABLE that sets the options, as docs/paimon.md says, makes its
   * next snapshot readable, rows written before the ALTER included.
   */
  @Test
  void withoutTheOptionThereIsNoIcebergTableAndAnExistingTableIsMadeReadableByAlteringIt()
      throws Exception {
    StreamhouseSinkConfig off = config(Map.of());
    Map<Long, String> model = new TreeMap<>();
    try (PaimonFormat format = format(off)) {
      List<SinkRecord> inserts = new ArrayList<>();
      for (long i = 0; i < 10; i++) {
        inserts.add(upsert(0, i, i, "v" + i, null));
        model.put(i, "v" + i);
      }
      format.commit(table, 1000, List.of(batch(format, table, off.routes().get(0), inserts)), true);
      FileStoreTable t = format.table(table);
      assertThat(t.options()).doesNotContainKey("metadata.iceberg.storage");
      assertThat(Path.of(t.location().toUri().getPath()).resolve("metadata")).doesNotExist();
      assertThatThrownBy(() -> iceberg(format.table(table)))
          .isInstanceOf(NoSuchTableException.class);
    }

    StreamhouseSinkConfig on = config(Map.of("route.items.iceberg-compatible", "true"));
    try (PaimonFormat format = format(on)) {
      List<SinkRecord> more = List.of(upsert(0, 10, 10, "v10", null));
      model.put(10L, "v10");
      format.commit(table, 2000, List.of(batch(format, table, on.routes().get(0), more)), true);
      FileStoreTable t = format.table(table);
      assertThat(t.options()).doesNotContainKey("metadata.iceberg.storage");
      assertThat(Path.of(t.location().toUri().getPath()).resolve("metadata")).doesNotExist();

      try (Catalog catalog = PaimonCatalogLoader.load(on.catalog("lake"))) {
        List<SchemaChange> changes = new ArrayList<>();
        PaimonTableCreator.icebergOptions(true)
            .forEach((k, v) -> changes.add(SchemaChange.setOption(k, v)));
        // Full compaction with the next commit, to see the rows without waiting 30 commits.
        changes.add(SchemaChange.setOption("full-compaction.delta-commits", "1"));
        catalog.alterTable(PaimonFormat.identifier(table), changes, false);
      }
      // The connector fully compacts the buckets a commit touches; here both.
      List<SinkRecord> after = new ArrayList<>();
      for (long i = 0; i < 5; i++) {
        after.add(upsert(0, 11 + i, i, "u" + i, null));
        model.put(i, "u" + i);
      }
      CommitOutcome written =
          format.commit(
              table, 3000, List.of(batch(format, table, on.routes().get(0), after)), true);
      assertThat(written.compactions()).hasSize(2);
      compact(format, written, 3001);
      t = format.table(table);
      assertThat(paimonRows(t)).isEqualTo(rowsOf(model));
      assertThat(icebergRows(t)).isEqualTo(rowsOf(model));
    }
  }
}
