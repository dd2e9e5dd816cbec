package io.streamhouse.connect.table.paimon;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.CompactionResult;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;

/**
 * Compaction of Paimon primary-key tables, run by the tasks and committed by the coordinator: when
 * a bucket gets a job, a second result for the same bucket, the jobs a new coordinator finds after
 * a crash, and the levels and formats of the files.
 */
class PaimonCompactionTest extends ItemsTableFixture {
  @Test
  void aSecondCompactionOfABucketIsRejectedAndLeavesTheTableAndItsFilesAlone() throws Exception {
    StreamhouseSinkConfig config = oneBucketFullCompactionEvery(1);
    try (PaimonFormat coordinator = format(config);
        PaimonFormat task1 = format(config);
        PaimonFormat task2 = format(config)) {
      RouteSettings route = config.routes().get(0);
      Map<Long, String> model = new TreeMap<>();
      List<SinkRecord> records = upsertsOfTenKeys(100, model);
      CommitOutcome written =
          coordinator.commit(table, 1000, List.of(batch(coordinator, route, records)), true);
      // The job went out twice (its first task was presumed dead): both tasks compact the same
      // files.
      PreparedFiles first = task1.compact(table, written.compactions());
      PreparedFiles stale = task2.compact(table, written.compactions());
      assertThat(first.files()).isPositive();
      // A result sent as a batch of written records is not taken for a compaction: refused.
      CommitOutcome asBatch =
          coordinator.commit(
              table, 1001, List.of(new OfferedBatch("compact-a", 1, Map.of(), first, -1)), true);
      assertThat(asBatch.decisions()).containsEntry("compact-a", BatchPlan.Decision.REJECT);
      assertThat(asBatch.refused()).containsExactly("compact-a");
      assertThat(coordinator.table(table).snapshotManager().latestSnapshotId())
          .isEqualTo(written.snapshotId().getAsLong());
      Map<String, BatchPlan.Decision> decisions =
          coordinator.commitCompactions(
              table,
              1001,
              List.of(
                  new CompactionResult("compact-a", 1, first),
                  new CompactionResult("compact-b", 2, stale)));
      assertThat(decisions)
          .as("the first passes the file checks and applies; the second's files are gone")
          .containsEntry("compact-a", BatchPlan.Decision.APPLY)
          .containsEntry("compact-b", BatchPlan.Decision.REJECT);
      FileStoreTable t = coordinator.table(table);
      assertThat(rows(t)).isEqualTo(model);
      assertThat(t.snapshotManager().latestSnapshot().properties())
          .as("the compaction snapshot keeps the watermarks")
          .containsEntry("streamhouse.test-sink.watermarks", "items:0=100");
      // Discarding the rejected result deletes nothing: a compaction result may be in the table
      // already.
      coordinator.discard(table, List.of(first, stale));
      assertThat(rows(coordinator.table(table))).isEqualTo(model);
    }
  }

  @Test
  void aNewCoordinatorFindsTheBucketsWhoseCompactionWasLostAndTheirRowsShowOnceTheyAreCompacted()
      throws Exception {
    StreamhouseSinkConfig config =
        config(
            Map.of(
                "route.items.buckets",
                "2",
                "route.items.table-property.deletion-vectors.enabled",
                "true"));
    try (PaimonFormat crashed = format(config);
        PaimonFormat next = format(config)) {
      RouteSettings route = config.routes().get(0);
      Map<Long, String> model = new TreeMap<>();
      List<SinkRecord> records = upsertsOfTenKeys(40, model);
      CommitOutcome written =
          crashed.commit(table, 1000, List.of(batch(crashed, route, records)), true);
      assertThat(written.compactions()).hasSize(2); // and then the coordinator dies with them
      assertThat(rows(next.table(table)))
          .as("deletion vectors: level-0 rows are not read")
          .isEmpty();

      OptionalLong beforeCompaction = next.latestSnapshotId(table);
      assertThat(beforeCompaction).isPresent();
      List<CompactionJob> pending = next.pendingCompactions(table);
      assertThat(pending)
          .extracting(CompactionJob::key)
          .containsExactlyInAnyOrderElementsOf(
              written.compactions().stream().map(CompactionJob::key).toList());
      PreparedFiles result = next.compact(table, pending);
      assertThat(
              next.commitCompactions(
                  table, 2000, List.of(new CompactionResult("compact-2000", 0, result))))
          .containsEntry("compact-2000", BatchPlan.Decision.APPLY);
      assertThat(rows(next.table(table))).isEqualTo(model);
      assertThat(next.pendingCompactions(table)).isEmpty();
      assertThat(next.pendingCompactions(new TableId("lake", List.of("db"), "missing"))).isEmpty();
      assertThat(next.latestSnapshotId(table).getAsLong())
          .as("the compaction's snapshot follows the written one")
          .isGreaterThan(beforeCompaction.getAsLong());
      assertThat(next.latestSnapshotId(new TableId("lake", List.of("db"), "missing"))).isEmpty();
    }
  }

  /**
   * Readers of a table without deletion vectors merge level-0 files themselves: a bucket gets a
   * compaction job only once it holds num-sorted-run.compaction-trigger of them since its last job,
   * not after every commit.
   */
  @Test
  void aBucketWhoseReadersMergeLevelZeroIsCompactedOnceItReachesTheTrigger() throws Exception {
    StreamhouseSinkConfig config =
        config(
            Map.of(
                "route.items.buckets",
                "1",
                "route.items.table-property.num-sorted-run.compaction-trigger",
                "3"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      Map<Long, String> model = new TreeMap<>();
      List<Integer> jobs = new ArrayList<>();
      CommitOutcome last = null;
      for (long round = 0; round < 5; round++) {
        OfferedBatch batch =
            batch(format, route, List.of(upsert(0, round, round % 2, "v" + round, null)));
        model.put(round % 2, "v" + round);
        last = format.commit(table, 1000 + round, List.of(batch), true);
        jobs.add(last.compactions().size());
        if (round == 2) {
          assertThat(compact(format, last, 1500)).containsValue(BatchPlan.Decision.APPLY);
          assertThat(rows(format.table(table))).isEqualTo(model);
        }
      }
      assertThat(jobs).as("jobs per commit").containsExactly(0, 0, 1, 0, 0);
      assertThat(rows(format.table(table))).isEqualTo(model);
      assertThat(format.table(table).snapshotManager().latestSnapshot().commitKind())
          .isEqualTo(Snapshot.CommitKind.APPEND);
    }
  }

  /**
   * Created primary-key tables write level-0 files in Avro (cheap to write, read only until their
   * compaction) and compact them into the route's format; a level-0 file in another format than the
   * table writes at level 0 is refused.
   */
  @Test
  void createdPrimaryKeyTablesWriteLevelZeroInAvroAndCompactIntoTheRouteFormat() throws Exception {
    StreamhouseSinkConfig config = oneBucketFullCompactionEvery(2);
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      OfferedBatch first = batch(format, route, List.of(upsert(0, 0, 1, "a", null)));
      format.commit(table, 1000, List.of(first), true);
      FileStoreTable t = format.table(table);
      assertThat(t.options())
          .containsEntry("file.format", "parquet")
          .containsEntry("file.format.per.level", "0:avro");
      assertThat(levelAndFormatOfFiles(t)).containsExactly("0:avro");

      OfferedBatch parquetAtLevelZero =
          forged(first, "parquet", f -> f.rename(f.fileName().replace(".avro", ".parquet")), null);
      CommitOutcome refused = format.commit(table, 1500, List.of(parquetAtLevelZero), true);
      assertThat(refused.refused()).containsExactly("parquet");

      CommitOutcome second =
          format.commit(
              table,
              2000,
              List.of(batch(format, route, List.of(upsert(0, 1, 2, "b", null)))),
              true);
      compact(format, second, 2001);
      t = format.table(table);
      assertThat(levelAndFormatOfFiles(t))
          .containsExactly(t.coreOptions().numLevels() - 1 + ":parquet");
      assertThat(rows(t)).isEqualTo(Map.of(1L, "a", 2L, "b"));
    }
  }

  private static List<String> levelAndFormatOfFiles(FileStoreTable t) {
    return t.newSnapshotReader().read().dataSplits().stream()
        .flatMap(split -> split.dataFiles().stream())
        .map(f -> f.level() + ":" + f.fileFormat())
        .toList();
  }
}
