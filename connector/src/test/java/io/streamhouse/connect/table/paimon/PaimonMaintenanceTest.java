package io.streamhouse.connect.table.paimon;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.MaintenanceSettings;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.MaintenanceReport;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.table.MaintenanceCheckpoints;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;

/**
 * What a maintenance pass and an expiry elsewhere leave of a Paimon table: the pass deletes old
 * files of batches never committed and nothing else; the connector's tag keeps its watermarks when
 * others' commits and an expiry remove its latest snapshot.
 */
class PaimonMaintenanceTest extends ItemsTableFixture {
  @Test
  void maintenanceDeletesOldFilesOfBatchesNeverCommittedAndKeepsTheTable() throws Exception {
    StreamhouseSinkConfig config = config(Map.of("route.items.iceberg-compatible", "true"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      OfferedBatch committed =
          batch(format, route, List.of(upsert(0, 0, 1, "a", null), upsert(0, 1, 2, "b", null)));
      format.commit(table, 1000, List.of(committed), true);
      Path tablePath = dir.resolve("warehouse").resolve("db.db").resolve("items");
      Set<Path> before = filesUnder(tablePath);
      batch(format, route, List.of(upsert(0, 2, 3, "never", null))); // written, never committed
      Set<Path> orphans = new HashSet<>(filesUnder(tablePath));
      orphans.removeAll(before);
      assertThat(orphans).as("the uncommitted batch's data files").isNotEmpty();
      long twoHoursAgo = System.currentTimeMillis() - 2 * 3_600_000L;
      for (Path p : filesUnder(tablePath)) {
        Files.setLastModifiedTime(p, java.nio.file.attribute.FileTime.fromMillis(twoHoursAgo));
      }
      MaintenanceSettings cleanOnly =
          new MaintenanceSettings(
              true, 60_000, 60_000, 0, 1, false, 5, 1 << 20, 16L << 20, 3_600_000L);

      MaintenanceReport report =
          format.maintain(
              table, cleanOnly, System.nanoTime() + 60_000_000_000L, MaintenanceCheckpoints.NONE);

      assertThat(report.orphansDeleted()).isEqualTo(orphans.size());
      assertThat(orphans).allSatisfy(p -> assertThat(p).doesNotExist());
      assertThat(filesUnder(tablePath))
          .as("every other file, the Iceberg metadata included, is kept")
          .containsExactlyInAnyOrderElementsOf(before);
      assertThat(rows(format.table(table))).containsOnlyKeys(1L, 2L);
      assertThat(format.watermarks(table).asMap())
          .containsExactly(Map.entry(new org.apache.kafka.common.TopicPartition("items", 0), 2L));
    }
  }

  @Test
  void anExpiryElsewhereKeepsTheWatermarksThroughTheConnectorsTag() throws Exception {
    StreamhouseSinkConfig config = config(Map.of());
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      OfferedBatch first =
          batch(format, route, List.of(upsert(0, 0, 1, "a", null), upsert(0, 1, 2, "b", null)));
      format.commit(table, 1000, List.of(first), true);
      FileStoreTable t = format.table(table);
      assertThat(t.tagManager().tagExists("streamhouse-test-sink")).isTrue();
      org.apache.paimon.table.sink.BatchWriteBuilder other = t.newBatchWriteBuilder();
      for (int i = 0; i < 3; i++) { // another writer, three snapshots on top
        try (org.apache.paimon.table.sink.BatchTableWrite write = other.newWrite();
            org.apache.paimon.table.sink.BatchTableCommit commit = other.newCommit()) {
          write.write(
              org.apache.paimon.data.GenericRow.of(
                  100L + i, org.apache.paimon.data.BinaryString.fromString("other"), null));
          commit.commit(write.prepareCommit());
        }
      }
      int expired =
          t.newExpireSnapshots()
              .config(
                  org.apache.paimon.options.ExpireConfig.builder()
                      .snapshotRetainMax(1)
                      .snapshotRetainMin(1)
                      .snapshotTimeRetain(java.time.Duration.ZERO)
                      .build())
              .expire();
      assertThat(expired).isPositive();
      assertThat(t.snapshotManager().latestSnapshotOfUser(PaimonFormat.commitUser("test-sink")))
          .as("the connector's snapshot is expired")
          .isEmpty();

      assertThat(format.watermarks(table).asMap())
          .containsExactly(Map.entry(new org.apache.kafka.common.TopicPartition("items", 0), 2L));
      OfferedBatch replayed =
          batch(format, route, List.of(upsert(0, 0, 1, "a", null), upsert(0, 1, 2, "b", null)));
      assertThat(format.commit(table, 2000, List.of(replayed), true).decisions())
          .containsEntry(
              replayed.batchId(),
              io.streamhouse.connect.protocol.BatchPlan.Decision.ALREADY_PRESENT);
      OfferedBatch next = batch(format, route, List.of(upsert(0, 2, 3, "c", null)));
      assertThat(format.commit(table, 3000, List.of(next), true).decisions())
          .containsEntry(next.batchId(), io.streamhouse.connect.protocol.BatchPlan.Decision.APPLY);
      assertThat(format.watermarks(table).asMap())
          .containsExactly(Map.entry(new org.apache.kafka.common.TopicPartition("items", 0), 3L));
      assertThat(rows(format.table(table))).containsOnlyKeys(1L, 2L, 3L, 100L, 101L, 102L);
    }
  }
}
