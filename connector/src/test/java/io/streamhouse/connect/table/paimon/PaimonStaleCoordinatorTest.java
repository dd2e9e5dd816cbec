package io.streamhouse.connect.table.paimon;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.CompactionResult;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;

/**
 * A coordinator frozen between its last look at a Paimon table and its commit, thawed after its
 * successor committed: it plans again instead of committing its stale plan, for batches and
 * compactions alike, so commit identifiers and watermarks never go back.
 */
class PaimonStaleCoordinatorTest extends ItemsTableFixture {
  /** {@code format}'s coordinator commits compaction {@code result} as planned in {@code plan}. */
  private PaimonCompactions.Attempt tryCommit(
      PaimonFormat format, PaimonCompactions.Plan plan, PreparedFiles result) throws Exception {
    return format
        .compactions()
        .tryCommit(
            table, plan, CommitMessagesCodec.decode(result.payloadVersion(), result.payload()));
  }

  /**
   * A coordinator frozen between its last look at the table and its commit, thawed after its
   * successor committed the same offsets (a task rewound and wrote them again): its commit fails as
   * Paimon writes the snapshot, it plans again and rejects its batch, instead of landing it beside
   * the successor's (the watermarks would claim offsets the successor's batch holds too).
   */
  @Test
  void aCoordinatorThawedAfterItsSuccessorCommittedPlansAgainInsteadOfCommittingItsStalePlan()
      throws Exception {
    StreamhouseSinkConfig config = config(Map.of("route.items.buckets", "1"));
    try (PaimonFormat zombie = format(config);
        PaimonFormat successor = format(config)) {
      RouteSettings route = config.routes().get(0);
      Map<Long, String> model = new TreeMap<>();
      zombie.commit(table, 1000, List.of(batch(zombie, route, upsertsOfTenKeys(50, model))), true);

      List<SinkRecord> stale = new ArrayList<>();
      for (long offset = 50; offset < 60; offset++) {
        stale.add(upsert(0, offset, 100 + offset, "stale", null));
      }
      OfferedBatch staleBatch = batch(zombie, route, stale);
      List<SinkRecord> again = new ArrayList<>();
      for (long offset = 50; offset < 53; offset++) {
        again.add(upsert(0, offset, 200 + offset, "again", null));
        model.put(200 + offset, "again");
      }
      OfferedBatch rewritten = batch(successor, route, again);
      int[] thaws = {0};
      zombie.beforeCommit(
          () -> {
            if (thaws[0]++ == 0) { // frozen here once, while the successor commits
              assertThat(successor.commit(table, 1005, List.of(rewritten), true).decisions())
                  .containsEntry(rewritten.batchId(), BatchPlan.Decision.APPLY);
            }
          });

      CommitOutcome outcome = zombie.commit(table, 1001, List.of(staleBatch), true);

      assertThat(outcome.decisions())
          .containsEntry(staleBatch.batchId(), BatchPlan.Decision.REJECT);
      assertOnlyTheFirstAndTheSuccessorsSnapshots(zombie.table(table), "items:0=53", model);
    }
  }

  /**
   * {@code t} holds the first commit's snapshot (1000) and the successor's (1005) only, the latest
   * with {@code watermarks}, and the rows of {@code model}: the frozen coordinator committed
   * nothing.
   */
  private static void assertOnlyTheFirstAndTheSuccessorsSnapshots(
      FileStoreTable t, String watermarks, Map<Long, String> model) throws Exception {
    assertThat(identifiers(t)).containsExactly(1000L, 1005L);
    assertThat(t.snapshotManager().latestSnapshot().properties())
        .containsEntry("streamhouse.test-sink.watermarks", watermarks);
    assertThat(rows(t)).isEqualTo(model);
  }

  /**
   * A compaction whose commit is overtaken between its last look at the table and its snapshot (a
   * frozen coordinator, its successor committing meanwhile) is not committed: its snapshot would
   * carry the watermarks of the commit before the successor's, going back.
   */
  @Test
  void aCompactionOvertakenBetweenItsLastLookAndItsSnapshotIsNotCommitted() throws Exception {
    StreamhouseSinkConfig config = oneBucketFullCompactionEvery(1);
    try (PaimonFormat zombie = format(config);
        PaimonFormat successor = format(config);
        PaimonFormat task = format(config)) {
      RouteSettings route = config.routes().get(0);
      Map<Long, String> model = new TreeMap<>();
      CommitOutcome written =
          zombie.commit(
              table, 1000, List.of(batch(zombie, route, upsertsOfTenKeys(50, model))), true);
      PreparedFiles result = task.compact(table, written.compactions());
      PaimonCompactions.Plan stale = zombie.compactions().plan(table, 1001);
      OfferedBatch later = batch(successor, route, List.of(upsert(0, 50, 3, "later", null)));
      model.put(3L, "later");
      zombie.beforeCommit(
          () ->
              assertThat(successor.commit(table, 1005, List.of(later), true).decisions())
                  .containsEntry(later.batchId(), BatchPlan.Decision.APPLY));

      PaimonCompactions.Attempt attempt = tryCommit(zombie, stale, result);

      assertThat(attempt.committed()).as(attempt.reason()).isFalse();
      assertThat(attempt.baseMoved()).isTrue();
      assertOnlyTheFirstAndTheSuccessorsSnapshots(zombie.table(table), "items:0=51", model);
    }
  }

  /**
   * A coordinator frozen between planning a compaction commit and committing it (a zombie, whose
   * successor committed meanwhile) must not commit the old plan on top of the newer snapshot: its
   * identifier would go backwards. It plans again, above the successor's identifier.
   */
  @Test
  void aCompactionPlannedBeforeAnotherCommitIsPlannedAgainSoIdentifiersNeverGoBackwards()
      throws Exception {
    StreamhouseSinkConfig config = oneBucketFullCompactionEvery(1);
    try (PaimonFormat zombie = format(config);
        PaimonFormat successor = format(config);
        PaimonFormat task = format(config)) {
      RouteSettings route = config.routes().get(0);
      Map<Long, String> model = new TreeMap<>();
      List<SinkRecord> first = upsertsOfTenKeys(50, model);
      CommitOutcome written =
          zombie.commit(table, 1000, List.of(batch(zombie, route, first)), true);
      PreparedFiles result = task.compact(table, written.compactions());
      PaimonCompactions.Plan stale = zombie.compactions().plan(table, 1001);
      assertThat(stale.identifier()).isEqualTo(1001);

      List<SinkRecord> second = List.of(upsert(0, 50, 3, "later", null));
      model.put(3L, "later");
      assertThat(
              successor
                  .commit(table, 1005, List.of(batch(successor, route, second)), true)
                  .decisions())
          .containsValue(BatchPlan.Decision.APPLY);

      PaimonCompactions.Attempt attempt = tryCommit(zombie, stale, result);
      assertThat(attempt.committed()).as("the stale plan is not committed").isFalse();
      assertThat(attempt.baseMoved()).isTrue();
      assertThat(
              zombie.commitCompactions(
                  table, 1001, List.of(new CompactionResult("compact-1001", 1, result))))
          .containsEntry("compact-1001", BatchPlan.Decision.APPLY);

      FileStoreTable t = zombie.table(table);
      assertThat(identifiers(t)).containsExactly(1000L, 1005L, 1006L);
      assertThat(t.snapshotManager().latestSnapshot().commitKind())
          .isEqualTo(Snapshot.CommitKind.COMPACT);
      assertThat(t.snapshotManager().latestSnapshot().properties())
          .as("the compaction carries the watermarks of the commit it was planned on again")
          .containsEntry("streamhouse.test-sink.watermarks", "items:0=51");
      assertThat(rows(t)).isEqualTo(model);
    }
  }
}
