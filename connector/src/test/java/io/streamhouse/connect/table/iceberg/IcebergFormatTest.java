package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.config.MaintenanceSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.MaintenanceReport;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableNotFoundException;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.table.WriteAfter;
import io.streamhouse.connect.testing.LocalCatalogConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Iceberg format against a real JDBC catalog (SQLite file) and a local warehouse. */
class IcebergFormatTest {
  static final Schema ORDER =
      SchemaBuilder.struct()
          .name("Order")
          .field("id", Schema.INT64_SCHEMA)
          .field("customer", Schema.STRING_SCHEMA)
          .field("amount", Schema.OPTIONAL_FLOAT64_SCHEMA)
          .field("created_at", Timestamp.SCHEMA)
          .build();
  private static final TopicPartition TP0 = new TopicPartition("orders", 0);

  @TempDir Path dir;
  private StreamhouseSinkConfig config;
  private TableId table;

  @BeforeEach
  void setUp() {
    Map<String, String> props = LocalCatalogConfigs.icebergOrders(dir);
    config = new StreamhouseSinkConfig(props);
    table = new TableId("local", List.of("default"), "orders");
  }

  private IcebergFormat format() {
    return new IcebergFormat(config.catalog("local"), config.connectorName(), 0);
  }

  static SinkRecord record(long offset, long id) {
    return record(offset, id, "c" + (id % 3));
  }

  private static SinkRecord record(long offset, long id, String customer) {
    Struct value =
        new Struct(ORDER)
            .put("id", id)
            .put("customer", customer)
            .put("amount", id * 1.5)
            .put("created_at", new java.util.Date(1_767_225_600_000L + id * 3_600_000L));
    return new SinkRecord("orders", 0, Schema.STRING_SCHEMA, "k" + id, ORDER, value, offset);
  }

  private PreparedFiles write(IcebergFormat format, long from, long to, FileBudget budget)
      throws Exception {
    TableWriter writer =
        format.openWriter(table, config.routes().get(0), record(from, from), budget).orElseThrow();
    for (long o = from; o < to; o++) {
      writer.write(record(o, o));
    }
    return writer.prepare();
  }

  /**
   * Creates the table, sets its Parquet pages to 1 KB (an open file's buffers small beside the
   * budget) and opens a writer on it under {@code budget}.
   */
  private TableWriter writerWithSmallPages(IcebergFormat format, FileBudget budget)
      throws Exception {
    write(format, 0, 1, new FileBudget(8, 64L << 20)); // creates the table
    format.table(table).updateProperties().set("write.parquet.page-size-bytes", "1024").commit();
    return format.openWriter(table, config.routes().get(0), record(0, 0), budget).orElseThrow();
  }

  private static OfferedBatch batch(String id, long from, long to, PreparedFiles files) {
    return new OfferedBatch(id, 0, Map.of(TP0, new OffsetRange(from, to)), files, 0L);
  }

  private List<Long> ids(IcebergFormat format) throws Exception {
    Table t = format.table(table);
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(t).build()) {
      rows.forEach(r -> ids.add((Long) r.getField("id")));
    }
    ids.sort(Long::compare);
    return ids;
  }

  @Test
  void writesPartitionedFilesAndCommitsThemWithTheirWatermarks() throws Exception {
    try (IcebergFormat format = format()) {
      PreparedFiles files = write(format, 0, 100, new FileBudget(64, 64L << 20));
      assertThat(files.records()).isEqualTo(100);
      assertThat(files.files()).isGreaterThan(4);
      CommitOutcome outcome = format.commit(table, 7L, List.of(batch("b1", 0, 100, files)), true);
      assertThat(outcome.decisions()).containsEntry("b1", BatchPlan.Decision.APPLY);
      assertThat(outcome.records()).isEqualTo(100);
      assertThat(ids(format)).hasSize(100).doesNotHaveDuplicates();
      assertThat(format.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 100L));
      Map<String, String> summary = format.table(table).currentSnapshot().summary();
      assertThat(summary)
          .containsEntry("streamhouse.test-sink.watermarks", "orders:0=100")
          .containsEntry("streamhouse.test-sink.commit-id", "7");
      assertThat(format.table(table).spec().fields()).hasSize(2);
      assertThat(format.table(table).io())
          .as("a local warehouse needs no Hadoop (no chmod process per file)")
          .isInstanceOf(LocalFileIO.class);
    }
  }

  /**
   * Someone else's expiry ({@code retainLast(1)} while another writer committed after us) would
   * remove the connector's latest snapshot, and with it the watermarks; the tag the connector moves
   * in each commit keeps it.
   */
  @Test
  void anExpiryElsewhereKeepsTheSnapshotWithTheWatermarks() throws Exception {
    try (IcebergFormat format = format()) {
      commitRounds(format, 2);
      Table t = format.table(table);
      long ours = t.currentSnapshot().snapshotId();
      assertThat(t.refs().get("streamhouse-test-sink").snapshotId()).isEqualTo(ours);

      t.newFastAppend().commit(); // another writer
      t.expireSnapshots().expireOlderThan(System.currentTimeMillis() + 1).retainLast(1).commit();
      t.refresh();
      assertThat(t.snapshots()).extracting(org.apache.iceberg.Snapshot::snapshotId).contains(ours);
      assertThat(format.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 20L));

      CommitOutcome replayed = commitBatch(format, "b2-again", 3L, 10, 20);
      assertThat(replayed.decisions())
          .containsEntry("b2-again", BatchPlan.Decision.ALREADY_PRESENT);
      assertThat(ids(format)).hasSize(20).doesNotHaveDuplicates();
    }
  }

  /** {@code rounds} commits of 10 records each: offsets and ids 0-9, 10-19, ... */
  private void commitRounds(IcebergFormat format, int rounds) throws Exception {
    for (int round = 0; round < rounds; round++) {
      commitBatch(format, "b" + round, round + 1L, round * 10L, round * 10L + 10);
    }
  }

  /** Writes records {@code from} to {@code to} and offers them as one batch in a full round. */
  private CommitOutcome commitBatch(
      IcebergFormat format, String batchId, long commitId, long from, long to) throws Exception {
    PreparedFiles files = write(format, from, to, new FileBudget(64, 64L << 20));
    return format.commit(table, commitId, List.of(batch(batchId, from, to, files)), true);
  }

  private static MaintenanceSettings expireEverythingOld() {
    return new MaintenanceSettings(true, 60_000, 60_000, 1, 1, false, 5, 1 << 20, 16L << 20, 0);
  }

  @Test
  void maintenanceExpiresOldSnapshotsAndTheirFilesButKeepsTheOneWithTheWatermarks()
      throws Exception {
    try (IcebergFormat format = format()) {
      commitRounds(format, 5);
      Table t = format.table(table);
      long ours = t.currentSnapshot().snapshotId();
      t.newFastAppend().commit(); // other writers
      t.newFastAppend().commit();
      t.refresh();
      long current = t.currentSnapshot().snapshotId();
      List<String> expiredManifestLists = new ArrayList<>();
      t.snapshots()
          .forEach(
              s -> {
                if (s.snapshotId() != ours && s.snapshotId() != current) {
                  expiredManifestLists.add(s.manifestListLocation());
                }
              });
      assertThat(expiredManifestLists).hasSize(5);
      Awaitility.await()
          .until(() -> t.currentSnapshot().timestampMillis() < System.currentTimeMillis() - 1);
      java.util.concurrent.atomic.AtomicInteger checkpoints =
          new java.util.concurrent.atomic.AtomicInteger();

      MaintenanceReport report =
          format.maintain(
              table,
              expireEverythingOld(),
              System.nanoTime() + 60_000_000_000L,
              new io.streamhouse.connect.table.MaintenanceCheckpoints() {
                @Override
                public void afterExpiryCommit() {
                  checkpoints.incrementAndGet();
                }

                @Override
                public void beforeRewriteCommit() {}
              });

      assertThat(report.snapshotsExpired()).isEqualTo(5);
      assertThat(report.expiredFilesDeleted()).isGreaterThanOrEqualTo(5);
      assertThat(checkpoints).as("once, between the expiry's commit and its deletions").hasValue(1);
      assertThat(expiredManifestLists)
          .allSatisfy(l -> assertThat(Path.of(java.net.URI.create(l).getPath())).doesNotExist());
      t.refresh();
      assertThat(t.snapshots())
          .extracting(org.apache.iceberg.Snapshot::snapshotId)
          .containsExactlyInAnyOrder(ours, current);
      assertThat(report.liveDataFiles())
          .isEqualTo(Long.parseLong(t.currentSnapshot().summary().get("total-data-files")))
          .isPositive();
      assertThat(format.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 50L));
      assertThat(ids(format)).hasSize(50).doesNotHaveDuplicates();
      CommitOutcome replayed = commitBatch(format, "b4-again", 9L, 40, 50);
      assertThat(replayed.decisions())
          .containsEntry("b4-again", BatchPlan.Decision.ALREADY_PRESENT);
      CommitOutcome next = commitBatch(format, "b5", 10L, 50, 60);
      assertThat(next.decisions())
          .as("the commit's own-snapshot check accepts the tagged snapshot off the cut ancestry")
          .containsEntry("b5", BatchPlan.Decision.APPLY);
      assertThat(format.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 60L));
      assertThat(ids(format)).hasSize(60).doesNotHaveDuplicates();
    }
  }

  @Test
  void maintenanceKeepsAtMostMaxSnapshotsOfYoungSnapshotsUnlessTheTableSetsItsOwnMaximumAge()
      throws Exception {
    MaintenanceSettings dayOldButAtMostFive =
        new MaintenanceSettings(
            true, 60_000, 60_000, 86_400_000L, 2, false, 5, 1 << 20, 16L << 20, 0, 0, 0, 5);
    try (IcebergFormat format = format()) {
      for (int round = 0; round < 12; round++) {
        commitBatch(format, "b" + round, round + 1L, round * 10L, round * 10L + 10);
        long committedAt = format.table(table).currentSnapshot().timestampMillis();
        Awaitility.await().until(() -> System.currentTimeMillis() > committedAt);
      }
      Table t = format.table(table);
      List<Long> newestFive = new ArrayList<>();
      for (org.apache.iceberg.Snapshot s :
          org.apache.iceberg.util.SnapshotUtil.currentAncestors(t)) {
        if (newestFive.size() < 5) {
          newestFive.add(s.snapshotId());
        }
      }

      MaintenanceReport report =
          format.maintain(
              table, dayOldButAtMostFive, System.nanoTime() + 60_000_000_000L, NO_CHECKPOINTS);

      assertThat(report.snapshotsExpired()).isEqualTo(7);
      t.refresh();
      assertThat(t.snapshots())
          .extracting(org.apache.iceberg.Snapshot::snapshotId)
          .containsExactlyInAnyOrderElementsOf(newestFive);
      assertThat(format.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 120L));
      assertThat(ids(format)).hasSize(120).doesNotHaveDuplicates();

      t.updateProperties().set("history.expire.max-snapshot-age-ms", "86400000").commit();
      for (int round = 12; round < 16; round++) {
        commitBatch(format, "b" + round, round + 1L, round * 10L, round * 10L + 10);
      }
      MaintenanceReport own =
          format.maintain(
              table, dayOldButAtMostFive, System.nanoTime() + 60_000_000_000L, NO_CHECKPOINTS);
      assertThat(own.snapshotsExpired())
          .as("the table's own maximum age keeps its snapshots for a day")
          .isZero();
      t.refresh();
      assertThat(t.snapshots()).hasSize(9);
    }
  }

  private static final io.streamhouse.connect.table.MaintenanceCheckpoints NO_CHECKPOINTS =
      new io.streamhouse.connect.table.MaintenanceCheckpoints() {
        @Override
        public void afterExpiryCommit() {}

        @Override
        public void beforeRewriteCommit() {}
      };

  @Test
  void maintenanceCompactsSmallFilesAndKeepsRowsAndWatermarks() throws Exception {
    try (IcebergFormat format = format()) {
      commitRounds(format, 8);
      long before =
          Long.parseLong(format.table(table).currentSnapshot().summary().get("total-data-files"));
      MaintenanceSettings compactOnly =
          new MaintenanceSettings(true, 60_000, 60_000, 0, 1, true, 2, 1 << 20, 16L << 20, 0);
      format.table(table).updateProperties().set("streamhouse.compact.enabled", "false").commit();
      assertThat(
              format
                  .maintain(
                      table,
                      compactOnly,
                      System.nanoTime() + 60_000_000_000L,
                      io.streamhouse.connect.table.MaintenanceCheckpoints.NONE)
                  .filesRewritten())
          .as("the table turned compaction off")
          .isZero();
      format.table(table).updateProperties().remove("streamhouse.compact.enabled").commit();
      MaintenanceReport report =
          format.maintain(
              table,
              new MaintenanceSettings(true, 60_000, 60_000, 0, 1, true, 2, 1 << 20, 16L << 20, 0),
              System.nanoTime() + 60_000_000_000L,
              io.streamhouse.connect.table.MaintenanceCheckpoints.NONE);
      assertThat(report.filesRewritten()).isPositive();
      assertThat(report.liveDataFiles())
          .isEqualTo(before - report.filesRewritten() + report.filesWritten())
          .isLessThan(before);
      assertThat(ids(format)).hasSize(80).doesNotHaveDuplicates();
      assertThat(format.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 80L));
    }
  }

  @Test
  void maintenanceDeletesOldFilesNothingReferencesAndNothingElse() throws Exception {
    try (IcebergFormat format = format()) {
      FileBudget budget = new FileBudget(64, 64L << 20);
      format.commit(table, 1L, List.of(batch("b0", 0, 10, write(format, 0, 10, budget))), true);
      format.commit(table, 2L, List.of(batch("b1", 10, 20, write(format, 10, 20, budget))), true);
      Table t = format.table(table);
      List<String> orphans = locations(t, write(format, 20, 30, budget)); // never committed
      Path stray = Path.of(t.location(), "metadata", "stray.metadata.json");
      Files.writeString(stray, "{}");
      long twoHoursAgo = System.currentTimeMillis() - 2 * 3_600_000L;
      try (java.util.stream.Stream<Path> all = Files.walk(Path.of(t.location()))) {
        for (Path p : all.filter(Files::isRegularFile).toList()) {
          Files.setLastModifiedTime(p, java.nio.file.attribute.FileTime.fromMillis(twoHoursAgo));
        }
      }
      List<String> fresh = locations(t, write(format, 30, 40, budget)); // never committed, new
      MaintenanceSettings cleanOnly =
          new MaintenanceSettings(
              true, 60_000, 60_000, 0, 1, false, 5, 1 << 20, 16L << 20, 3_600_000L);

      MaintenanceReport report =
          format.maintain(
              table,
              cleanOnly,
              System.nanoTime() + 60_000_000_000L,
              io.streamhouse.connect.table.MaintenanceCheckpoints.NONE);

      assertThat(report.orphansDeleted()).isEqualTo(orphans.size() + 1);
      assertThat(orphans).isNotEmpty().allSatisfy(l -> assertThat(Path.of(l)).doesNotExist());
      assertThat(stray).doesNotExist();
      assertThat(fresh).isNotEmpty().allSatisfy(l -> assertThat(Path.of(l)).exists());
      assertThat(ids(format)).hasSize(20).doesNotHaveDuplicates();
      assertThat(format.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 20L));
      format.commit(table, 3L, List.of(batch("b2", 20, 30, write(format, 20, 30, budget))), true);
      assertThat(ids(format)).hasSize(30).doesNotHaveDuplicates();
      assertThat(
              format
                  .maintain(
                      table,
                      cleanOnly,
                      System.nanoTime() + 60_000_000_000L,
                      io.streamhouse.connect.table.MaintenanceCheckpoints.NONE)
                  .orphansDeleted())
          .as("a table's folders are listed at most once an hour")
          .isZero();
    }
  }

  private static List<String> locations(Table t, PreparedFiles files) throws Exception {
    return DataFilesCodec.decode(files.payloadVersion(), files.payload(), t.specs()).stream()
        .map(f -> LocalFileIO.file(f.location()).getPath())
        .toList();
  }

  @Test
  void afterTheApacheSinkOfTheSameNameCommittedTheTableContinuesWhereConnectsOffsetsSay()
      throws Exception {
    try (IcebergFormat format = format()) {
      commitRounds(format, 2); // ours: offsets 0-19
      Table t = format.table(table);
      // Another connector's Apache sink: it says nothing about ours.
      t.newFastAppend()
          .set("kafka.connect.commit-id", "c1")
          .set("kafka.connect.offsets.control-iceberg.connect-other", "{\"0\":5}")
          .commit();
      PreparedFiles ahead = write(format, 50, 60, new FileBudget(64, 64L << 20));
      assertThat(format.commit(table, 3L, List.of(batch("ahead", 50, 60, ahead)), true).decisions())
          .as("a gap after the connector's own watermark")
          .containsEntry("ahead", BatchPlan.Decision.REJECT);
      // The Apache sink under this connector's name consumed offsets 20-49 in between.
      t.newFastAppend()
          .set("kafka.connect.commit-id", "c2")
          .set("kafka.connect.offsets.control-iceberg.connect-test-sink", "{\"0\":7}")
          .commit();
      assertThat(format.watermarks(table).asMap()).isEmpty();
      PreparedFiles again = write(format, 50, 60, new FileBudget(64, 64L << 20));
      assertThat(format.commit(table, 4L, List.of(batch("again", 50, 60, again)), true).decisions())
          .containsEntry("again", BatchPlan.Decision.APPLY);
      assertThat(format.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 60L));
    }
  }

  @Test
  void theTablesOwnExpirySettingsWinAndATableWithoutGcKeepsEverything() throws Exception {
    try (IcebergFormat format = format()) {
      commitRounds(format, 3);
      Table t = format.table(table);
      Awaitility.await()
          .until(() -> t.currentSnapshot().timestampMillis() < System.currentTimeMillis() - 1);
      t.updateProperties().set("history.expire.min-snapshots-to-keep", "3").commit();
      assertThat(
              format.maintain(
                  table,
                  expireEverythingOld(),
                  Long.MAX_VALUE,
                  io.streamhouse.connect.table.MaintenanceCheckpoints.NONE))
          .extracting(MaintenanceReport::snapshotsExpired)
          .isEqualTo(0);
      t.updateProperties()
          .remove("history.expire.min-snapshots-to-keep")
          .set("gc.enabled", "false")
          .commit();
      assertThat(
              format.maintain(
                  table,
                  expireEverythingOld(),
                  Long.MAX_VALUE,
                  io.streamhouse.connect.table.MaintenanceCheckpoints.NONE))
          .extracting(MaintenanceReport::snapshotsExpired)
          .isEqualTo(0);
      t.updateProperties().remove("gc.enabled").commit();
      assertThat(
              format.maintain(
                  table,
                  expireEverythingOld(),
                  Long.MAX_VALUE,
                  io.streamhouse.connect.table.MaintenanceCheckpoints.NONE))
          .extracting(MaintenanceReport::snapshotsExpired)
          .as("the first two go; the last is the current one and the tagged one")
          .isEqualTo(2);
    }
  }

  /**
   * Two snapshots of other writers on top of the connector's, and an expiry keeping only the
   * latest: the one between is gone, so the ancestry walk stops before the connector's snapshot;
   * the tag still finds it, and the next commit validates across the cut.
   */
  @Test
  void anExpiryThatCutsTheAncestryKeepsTheWatermarks() throws Exception {
    try (IcebergFormat format = format()) {
      commitRounds(format, 1);
      Table t = format.table(table);
      t.newFastAppend().commit(); // another writer, twice
      t.newFastAppend().commit();
      t.expireSnapshots().expireOlderThan(System.currentTimeMillis() + 1).retainLast(1).commit();
      t.refresh();
      assertThat(t.snapshot(t.currentSnapshot().parentId())).isNull();
      assertThat(format.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 10L));

      CommitOutcome next =
          format.commit(
              table,
              2L,
              List.of(
                  batch("b1-again", 0, 10, write(format, 0, 10, new FileBudget(64, 64L << 20))),
                  batch("b2", 10, 20, write(format, 10, 20, new FileBudget(64, 64L << 20)))),
              true);
      assertThat(next.decisions())
          .containsEntry("b1-again", BatchPlan.Decision.ALREADY_PRESENT)
          .containsEntry("b2", BatchPlan.Decision.APPLY);
      assertThat(ids(format)).hasSize(20).doesNotHaveDuplicates();
      assertThat(format.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 20L));
    }
  }

  /** A payload naming {@code files} with their locations changed by {@code relocate}. */
  private PreparedFiles forged(
      IcebergFormat format, PreparedFiles real, java.util.function.UnaryOperator<String> relocate)
      throws Exception {
    Table t = format.table(table);
    List<org.apache.iceberg.DataFile> moved = new ArrayList<>();
    for (org.apache.iceberg.DataFile f :
        DataFilesCodec.decode(real.payloadVersion(), real.payload(), t.specs())) {
      moved.add(
          org.apache.iceberg.DataFiles.builder(t.specs().get(f.specId()))
              .copy(f)
              .withPath(relocate.apply(f.location()))
              .build());
    }
    return new PreparedFiles(
        DataFilesCodec.VERSION,
        DataFilesCodec.encode(moved, t.specs()),
        moved.size(),
        real.records(),
        real.bytes());
  }

  @Test
  void aBatchNamingFilesOutsideTheTablesDataLocationIsRefusedAndItsFilesAreLeftAlone()
      throws Exception {
    try (IcebergFormat format = format()) {
      PreparedFiles real = write(format, 0, 20, new FileBudget(64, 64L << 20));
      Path outside = java.nio.file.Files.createDirectories(dir.resolve("elsewhere"));
      String dataLocation = IcebergFileCheck.dataLocation(format.table(table));
      List<String> copies = new ArrayList<>();
      PreparedFiles foreign =
          forged(
              format,
              real,
              location -> {
                String copy =
                    outside.resolve(location.substring(location.lastIndexOf('/') + 1)).toString();
                copies.add(copy);
                return copy;
              });
      for (String copy : copies) {
        java.nio.file.Files.writeString(Path.of(copy), "not the connector's");
      }
      PreparedFiles climbing =
          forged(
              format,
              real,
              location -> dataLocation + "/../../../elsewhere/x" + location.hashCode());
      CommitOutcome outcome =
          format.commit(
              table,
              1L,
              List.of(
                  batch("foreign", 0, 20, foreign),
                  new OfferedBatch(
                      "climbing",
                      1,
                      Map.of(new TopicPartition("orders", 1), new OffsetRange(0, 20)),
                      climbing,
                      0L)),
              true);
      assertThat(outcome.decisions())
          .containsEntry("foreign", BatchPlan.Decision.REJECT)
          .containsEntry("climbing", BatchPlan.Decision.REJECT);
      assertThat(outcome.refused()).containsExactlyInAnyOrder("foreign", "climbing");
      assertThat(outcome.snapshotId()).isEmpty();
      assertThat(ids(format)).isEmpty();
      for (String copy : copies) {
        assertThat(Path.of(copy)).hasContent("not the connector's");
      }
      // The real batch still commits afterwards.
      assertThat(format.commit(table, 2L, List.of(batch("real", 0, 20, real)), true).decisions())
          .containsEntry("real", BatchPlan.Decision.APPLY);
      assertThat(ids(format)).hasSize(20);
    }
  }

  @Test
  void aFileNamedByTwoBatchesRefusesBothAndAnUnknownSpecOrFormatIsRefused() throws Exception {
    try (IcebergFormat format = format()) {
      PreparedFiles real = write(format, 0, 20, new FileBudget(64, 64L << 20));
      OfferedBatch second =
          new OfferedBatch(
              "copy", 1, Map.of(new TopicPartition("orders", 1), new OffsetRange(0, 20)), real, 0L);
      CommitOutcome twice =
          format.commit(table, 1L, List.of(batch("real", 0, 20, real), second), true);
      assertThat(twice.refused()).containsExactlyInAnyOrder("real", "copy");
      assertThat(ids(format)).isEmpty();

      String json = new String(real.payload(), java.nio.charset.StandardCharsets.UTF_8);
      PreparedFiles unknownSpec =
          new PreparedFiles(
              DataFilesCodec.VERSION,
              json.replace("\"spec-id\":0", "\"spec-id\":99")
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8),
              real.files(),
              real.records(),
              real.bytes());
      PreparedFiles otherFormat =
          new PreparedFiles(
              DataFilesCodec.VERSION,
              json.replace("\"file-format\":\"parquet\"", "\"file-format\":\"avro\"")
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8),
              real.files(),
              real.records(),
              real.bytes());
      PreparedFiles javaSerialized =
          new PreparedFiles(1, new byte[] {(byte) 0xac, (byte) 0xed, 0, 5}, 1, 1, 1);
      CommitOutcome bad =
          format.commit(
              table,
              2L,
              List.of(
                  batch("spec", 0, 20, unknownSpec),
                  batch("format", 0, 20, otherFormat),
                  batch("v1", 0, 20, javaSerialized)),
              true);
      assertThat(bad.refused()).containsExactlyInAnyOrder("spec", "format", "v1");
      assertThat(ids(format)).isEmpty();
    }
  }

  @Test
  void dataFilesTravelAsIcebergJsonOfBoundedSize() throws Exception {
    try (IcebergFormat format = format()) {
      PreparedFiles real = write(format, 0, 20, new FileBudget(64, 64L << 20));
      Table t = format.table(table);
      List<org.apache.iceberg.DataFile> decoded =
          DataFilesCodec.decode(real.payloadVersion(), real.payload(), t.specs());
      assertThat(decoded).hasSize(real.files());
      List<org.apache.iceberg.DataFile> thousand = new ArrayList<>();
      for (int i = 0; i < 1_000; i++) {
        org.apache.iceberg.DataFile f = decoded.get(i % decoded.size());
        thousand.add(
            org.apache.iceberg.DataFiles.builder(t.specs().get(f.specId()))
                .copy(f)
                .withPath(f.location().replace(".parquet", "-" + i + ".parquet"))
                .build());
      }
      byte[] json = DataFilesCodec.encode(thousand, t.specs());
      java.io.ByteArrayOutputStream serialized = new java.io.ByteArrayOutputStream();
      try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(serialized)) {
        out.writeObject(new ArrayList<>(thousand)); // the encoding before version 2, for the record
      }
      System.out.printf(
          "1,000 data files (4 columns, 2 partition fields): %,d bytes as Iceberg JSON, %,d bytes "
              + "Java-serialized%n",
          json.length, serialized.size());
      List<org.apache.iceberg.DataFile> back =
          DataFilesCodec.decode(DataFilesCodec.VERSION, json, t.specs());
      assertThat(back).hasSize(1_000);
      for (int i = 0; i < 1_000; i++) {
        assertThat(back.get(i).location()).isEqualTo(thousand.get(i).location());
        assertThat(back.get(i).partition()).isEqualTo(thousand.get(i).partition());
        assertThat(back.get(i).recordCount()).isEqualTo(thousand.get(i).recordCount());
        assertThat(back.get(i).lowerBounds()).isEqualTo(thousand.get(i).lowerBounds());
        assertThat(back.get(i).upperBounds()).isEqualTo(thousand.get(i).upperBounds());
        assertThat(back.get(i).valueCounts()).isEqualTo(thousand.get(i).valueCounts());
      }
    }
  }

  @Test
  void hostileDataFilePayloadsEndInATypedRejection() throws Exception {
    try (IcebergFormat format = format()) {
      PreparedFiles real = write(format, 0, 20, new FileBudget(64, 64L << 20));
      Map<Integer, org.apache.iceberg.PartitionSpec> specs = format.table(table).specs();
      io.streamhouse.connect.testing.Mutations mutations =
          new io.streamhouse.connect.testing.Mutations(7);
      int refused = 0;
      for (int i = 0; i < 20_000; i++) {
        try {
          DataFilesCodec.decode(DataFilesCodec.VERSION, mutations.mutate(real.payload()), specs);
        } catch (DataFilesCodec.InvalidDataFilesException expected) {
          refused++;
        } catch (Throwable other) {
          throw new AssertionError("case " + i + " ended in " + other, other);
        }
      }
      assertThat(refused).isGreaterThan(10_000);
    }
  }

  /**
   * A task taking over partitions writes right after another task's batch that is not decided yet
   * (docs/architecture.md, "Reading on after a hand-in"): the coordinator commits the batch first,
   * then what the next owner wrote after it. Files that cannot be read are not read on after.
   */
  @Test
  void aNextOwnerWritesRightAfterAnUndecidedAppendBatchButNotAfterFilesItCannotRead()
      throws Exception {
    try (IcebergFormat last = format();
        IcebergFormat next =
            new IcebergFormat(config.catalog("local"), config.connectorName(), 1)) {
      PreparedFiles handedIn = write(last, 0, 50, new FileBudget(64, 64L << 20));
      assertThat(next.writeAfter(table, handedIn)).contains(WriteAfter.NOTHING);
      PreparedFiles after = write(next, 50, 80, new FileBudget(64, 64L << 20));
      CommitOutcome outcome =
          last.commit(
              table,
              1L,
              List.of(
                  batch("handed-in", 0, 50, handedIn),
                  new OfferedBatch("after", 1, Map.of(TP0, new OffsetRange(50, 80)), after, 0L)),
              true);
      assertThat(outcome.decisions())
          .containsEntry("handed-in", BatchPlan.Decision.APPLY)
          .containsEntry("after", BatchPlan.Decision.APPLY);
      assertThat(ids(last)).hasSize(80).doesNotHaveDuplicates();
      assertThat(last.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 80L));

      byte[] cut = java.util.Arrays.copyOf(handedIn.payload(), handedIn.payload().length / 2);
      assertThat(next.writeAfter(table, files(handedIn.payloadVersion(), cut, handedIn))).isEmpty();
      assertThat(
              next.writeAfter(table, files(KeyedFilesCodec.VERSION, handedIn.payload(), handedIn)))
          .as("a keyed table's batch: the next owner's key index would not know its rows")
          .isEmpty();
      assertThat(next.writeAfter(new TableId("local", List.of("default"), "missing"), handedIn))
          .isEmpty();
    }
  }

  private static PreparedFiles files(int version, byte[] payload, PreparedFiles like) {
    return new PreparedFiles(version, payload, like.files(), like.records(), like.bytes());
  }

  @Test
  void aBatchOfferedTwiceLandsOnce() throws Exception {
    try (IcebergFormat format = format()) {
      PreparedFiles files = write(format, 0, 50, new FileBudget(64, 64L << 20));
      format.commit(table, 1L, List.of(batch("b1", 0, 50, files)), true);
      CommitOutcome again = format.commit(table, 2L, List.of(batch("b1", 0, 50, files)), true);
      assertThat(again.decisions()).containsEntry("b1", BatchPlan.Decision.ALREADY_PRESENT);
      assertThat(again.snapshotId()).isEmpty();
      assertThat(ids(format)).hasSize(50);
    }
  }

  @Test
  void twoCommittersRacingOnOneTableNeverDuplicate() throws Exception {
    try (IcebergFormat a = format();
        IcebergFormat b = format()) {
      PreparedFiles first = write(a, 0, 40, new FileBudget(64, 64L << 20));
      a.commit(table, 1L, List.of(batch("first", 0, 40, first)), true);
      PreparedFiles fromA = write(a, 40, 80, new FileBudget(64, 64L << 20));
      PreparedFiles fromB =
          write(b, 40, 90, new FileBudget(64, 64L << 20)); // a zombie's overlapping batch
      CompletableFuture<CommitOutcome> ca =
          CompletableFuture.supplyAsync(
              () -> a.commit(table, 2L, List.of(batch("a", 40, 80, fromA)), true));
      CompletableFuture<CommitOutcome> cb =
          CompletableFuture.supplyAsync(
              () -> b.commit(table, 3L, List.of(batch("b", 40, 90, fromB)), true));
      List<BatchPlan.Decision> decisions =
          List.of(
              ca.join().decisions().values().iterator().next(),
              cb.join().decisions().values().iterator().next());
      // Exactly one applies; the other is rejected (a applied first) or already present (b first).
      assertThat(decisions).containsOnlyOnce(BatchPlan.Decision.APPLY).doesNotHaveDuplicates();
      List<Long> ids = ids(a);
      assertThat(ids).doesNotHaveDuplicates().hasSizeBetween(80, 90);
      long end = a.watermarks(table).of(TP0).orElseThrow();
      assertThat(ids).hasSize((int) end);
    }
  }

  /**
   * Records arriving round-robin over many partitions (as over many tables): with the bytes to hold
   * them, one file per partition; with a tight budget, files of a fair share of it, never one per
   * record, and every row kept.
   */
  @Test
  void roundRobinOverPartitionsWritesFilesOfAShareOfTheBudgetNotOnePerRecord() throws Exception {
    Map<String, String> props = new HashMap<>(config.originalsStrings());
    props.put(
        "route.orders.partition-by", "bucket(16,id)"); // consecutive ids take turns over 16 files
    config = new StreamhouseSinkConfig(props);
    try (IcebergFormat format = format()) {
      FileBudget roomy = new FileBudget(1_000, 64L << 20);
      PreparedFiles all = write(format, 0, 2_000, roomy);
      assertThat(all.files()).isEqualTo(16);
      assertThat(roomy.evictions()).isZero();
      format.commit(table, 1L, List.of(batch("roomy", 0, 2_000, all)), true);

      FileBudget tight =
          new FileBudget(1_000, 16 * 36 * 1024 + 100 * 1024); // 16 files' buffers + ~100 KB of rows
      PreparedFiles cut = write(format, 2_000, 20_000, tight);
      assertThat(tight.evictions()).isPositive();
      assertThat(cut.files()).as("18,000 rows over 16 partitions").isBetween(17, 18_000 / 50);
      format.commit(table, 2L, List.of(batch("tight", 2_000, 20_000, cut)), true);
      assertThat(ids(format)).hasSize(20_000).doesNotHaveDuplicates();
    }
  }

  /**
   * A partition that takes the task's rows turns into an open file at its first run of rows, takes
   * its rows in runs and rolls at the target size: the budget holds the open file's buffers and the
   * rows since it last rolled, and every row lands once.
   */
  @Test
  void aPartitionTakingTheTasksRowsOpensItsFileAtItsFirstRunAndRollsAtTheTargetSize()
      throws Exception {
    Map<String, String> props = new HashMap<>(config.originalsStrings());
    props.put("route.orders.partition-by", "");
    props.put("route.orders.target-file-size-bytes", "4096");
    config = new StreamhouseSinkConfig(props);
    try (IcebergFormat format = format()) {
      FileBudget budget = new FileBudget(8, 2L << 20); // an eighth: 256 KB of held rows
      TableWriter writer = writerWithSmallPages(format, budget);
      long openFileFloor = 64 << 10; // an open file's buffers: 64 KB and a page per column
      long most = 0;
      for (long o = 0; o < 40_000; o++) {
        writer.write(record(o, o));
        most = Math.max(most, budget.bufferedBytes());
        if (o == 300) {
          assertThat(budget.bufferedBytes())
              .as("an open file after the first run of 256 rows")
              .isGreaterThanOrEqualTo(openFileFloor);
        }
      }
      assertThat(most)
          .as("an open file's buffers and the rows since it last rolled, not 4 MB of rows")
          .isLessThan(512L << 10);
      assertThat(budget.evictions()).isZero();
      PreparedFiles files = writer.prepare();
      assertThat(files.files()).as("rolled at the target size").isGreaterThan(2);
      format.commit(table, 1L, List.of(batch("hot", 0, 40_000, files)), true);
      assertThat(ids(format)).hasSize(40_000).doesNotHaveDuplicates();
    }
  }

  /**
   * Of a task's partitions, one taking at least an eighth of the rows written since it began opens
   * its file at its first run; one taking less (fan-out) holds its rows, costing no file's buffers,
   * until it holds an eighth of the budget, then opens its file, and in the next round it opens its
   * file at its first run though its share is still small. Every row lands once.
   */
  @Test
  void aPartitionOpensItsFileAtItsFirstRunWhenHotByShareOrOpenInTheLastRound() throws Exception {
    Map<String, String> props = new HashMap<>(config.originalsStrings());
    props.put("route.orders.partition-by", "customer");
    props.put(
        "route.orders.target-file-size-bytes", "4096"); // the hot partition's charge stays low
    config = new StreamhouseSinkConfig(props);
    try (IcebergFormat format = format()) {
      FileBudget budget = new FileBudget(8, 4L << 20); // an eighth: 512 KB of held rows
      IcebergTableWriter writer = (IcebergTableWriter) writerWithSmallPages(format, budget);
      long o = 0;
      for (; o < 2_600; o++) { // hot 90 %, warm 10 %: warm's first look comes at its 256th row
        writer.write(record(o, o, o % 10 == 9 ? "warm" : "hot"));
      }
      assertThat(customers(writer.openPartitions()))
          .as("hot by its share (its rows far below an eighth of the budget); warm holds its rows")
          .containsExactly("hot");
      for (; o < 400_000 && writer.openPartitions().size() < 2; o++) {
        writer.write(record(o, o, o % 10 == 9 ? "warm" : "hot"));
      }
      assertThat(customers(writer.openPartitions()))
          .as("warm opens once it holds an eighth of the budget")
          .containsExactlyInAnyOrder("hot", "warm");
      long firstRound = o;
      PreparedFiles first = writer.prepare();
      for (; o < firstRound + 3_000; o++) { // hot 80 %, warm 10 %, cold (new) 10 %
        long kind = o % 10;
        writer.write(record(o, o, kind == 8 ? "warm" : kind == 9 ? "cold" : "hot"));
      }
      assertThat(customers(writer.openPartitions()))
          .as("warm was open in the last round; cold holds its rows")
          .containsExactlyInAnyOrder("hot", "warm");
      assertThat(budget.evictions()).isZero();
      PreparedFiles second = writer.prepare();
      format.commit(
          table,
          1L,
          List.of(batch("first", 0, firstRound, first), batch("second", firstRound, o, second)),
          true);
      assertThat(ids(format)).hasSize((int) o).doesNotHaveDuplicates();
    }
  }

  private static List<String> customers(Set<Object> partitions) {
    return partitions.stream().map(k -> ((PartitionKey) k).get(0, String.class)).toList();
  }

  @Test
  void aSmallFileBudgetClosesFilesEarlyButKeepsEveryRow() throws Exception {
    try (IcebergFormat format = format()) {
      FileBudget budget = new FileBudget(2, 64L << 20);
      PreparedFiles files = write(format, 0, 200, budget);
      assertThat(budget.evictions()).isPositive();
      assertThat(budget.openFiles()).isZero();
      format.commit(table, 1L, List.of(batch("b", 0, 200, files)), false);
      assertThat(ids(format)).hasSize(200).doesNotHaveDuplicates();
    }
  }

  @Test
  void anUnpartitionedTableWhoseFileTheBudgetClosesEarlyGoesOnInANewFileAndKeepsEveryRow()
      throws Exception {
    Map<String, String> props = new HashMap<>(config.originalsStrings());
    props.put("route.orders.partition-by", "");
    config = new StreamhouseSinkConfig(props);
    try (IcebergFormat format = format()) {
      FileBudget budget = new FileBudget(8, 16L << 10);
      PreparedFiles files = write(format, 0, 3000, budget);
      assertThat(budget.evictions()).isPositive();
      assertThat(files.files()).as("one file per early close, and the last").isGreaterThan(1);
      format.commit(table, 1L, List.of(batch("b", 0, 3000, files)), false);
      assertThat(ids(format)).hasSize(3000).doesNotHaveDuplicates();
    }
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"parquet", "orc", "avro"})
  void otherFileFormatsAndTheTargetFileSizeComeFromTheRoute(String fileFormat) throws Exception {
    Map<String, String> props = new HashMap<>(config.originalsStrings());
    props.put("route.orders.file-format", fileFormat);
    props.put("route.orders.target-file-size-bytes", "2048");
    props.put("route.orders.partition-by", "");
    config = new StreamhouseSinkConfig(props);
    try (IcebergFormat format = format()) {
      PreparedFiles files = write(format, 0, 3000, new FileBudget(8, 64L << 20));
      if (!fileFormat.equals("avro")) { // Iceberg's Avro writer sees its size only per 64 KB block
        assertThat(files.files()).as("files rolled at the target size").isGreaterThan(1);
      }
      format.commit(table, 1L, List.of(batch("b", 0, 3000, files)), true);
      Table t = format.table(table);
      assertThat(t.properties())
          .containsEntry("write.format.default", fileFormat)
          .containsEntry("write.metadata.delete-after-commit.enabled", "true")
          .containsEntry("write.metadata.previous-versions-max", "100");
      assertThat(org.apache.iceberg.SnapshotChanges.builderFor(t).build().addedDataFiles())
          .allSatisfy(f -> assertThat(f.format().name()).isEqualToIgnoringCase(fileFormat));
      assertThat(ids(format)).hasSize(3000).doesNotHaveDuplicates();
    }
  }

  @Test
  void badValuesNameTheirField() throws Exception {
    try (IcebergFormat format = format()) {
      TableWriter writer =
          format
              .openWriter(table, config.routes().get(0), record(0, 0), new FileBudget(8, 64L << 20))
              .orElseThrow();
      Map<String, Object> wrong =
          new HashMap<>(Map.of("id", "not-a-number", "customer", "x", "created_at", 0L));
      SinkRecord schemaless = new SinkRecord("orders", 0, null, null, null, wrong, 1);
      assertThatThrownBy(() -> writer.write(schemaless))
          .isInstanceOf(RecordConversionException.class)
          .hasMessageContaining("column 'id'")
          .extracting(e -> ((RecordConversionException) e).field())
          .isEqualTo("id");
      Map<String, Object> missing = Map.of("customer", "x", "created_at", 0L);
      assertThatThrownBy(
              () -> writer.write(new SinkRecord("orders", 0, null, null, null, missing, 2)))
          .hasMessage("required column 'id' is missing or null");
      writer.abort();
    }
  }

  @Test
  void aMissingTableWithoutAutoCreateIsAClearError() {
    Map<String, String> props = new HashMap<>(config.originalsStrings());
    props.put("route.orders.auto-create", "false");
    StreamhouseSinkConfig noCreate = new StreamhouseSinkConfig(props);
    try (IcebergFormat format = new IcebergFormat(noCreate.catalog("local"), "test-sink", 0)) {
      assertThatThrownBy(
              () ->
                  format.openWriter(
                      table, noCreate.routes().get(0), record(0, 0), new FileBudget(8, 64L << 20)))
          .isInstanceOf(TableNotFoundException.class)
          .hasMessage(
              "Table default.orders does not exist in catalog local and route orders has auto-create "
                  + "off (set route.orders.auto-create=true or create the table)");
    }
  }
}
