package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.MaintenanceSettings;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.MaintenanceReport;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.table.FileBudget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Maintenance of Iceberg append tables, and expiry by others: old snapshots expire (the table's own
 * settings win), small files are compacted, old files nothing references are deleted, and the
 * snapshot with the connector's watermarks is kept throughout, also when an expiry cuts the
 * ancestry.
 */
class IcebergMaintenanceTest extends AppendTableFixture {
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
      MaintenanceReport report = compact(format);
      assertThat(report.filesRewritten()).isPositive();
      assertThat(report.liveDataFiles())
          .isEqualTo(before - report.filesRewritten() + report.filesWritten())
          .isLessThan(before);
      assertThat(ids(format)).hasSize(80).doesNotHaveDuplicates();
      assertThat(format.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 80L));
    }
  }

  /**
   * A catalog that keeps no tags (Nessie keeps a table's current snapshot alone): a compaction's
   * snapshot would hide the connector's watermarks, so the table is not compacted.
   */
  @Test
  void aTableWithoutTheConnectorsTagIsNotCompacted() throws Exception {
    try (IcebergFormat format = format()) {
      commitRounds(format, 8);
      format.table(table).manageSnapshots().removeTag(format.keys().tag()).commit();
      long snapshot = format.table(table).currentSnapshot().snapshotId();

      MaintenanceReport report = compact(format);

      assertThat(report.filesRewritten()).isZero();
      assertThat(format.table(table).currentSnapshot().snapshotId()).isEqualTo(snapshot);
      assertThat(format.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 80L));
    }
  }

  /** A maintenance pass that compacts groups of 2 small files or more, and nothing else. */
  private MaintenanceReport compact(IcebergFormat format) {
    return format.maintain(
        table,
        new MaintenanceSettings(true, 60_000, 60_000, 0, 1, true, 2, 1 << 20, 16L << 20, 0),
        System.nanoTime() + 60_000_000_000L,
        io.streamhouse.connect.table.MaintenanceCheckpoints.NONE);
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
}
