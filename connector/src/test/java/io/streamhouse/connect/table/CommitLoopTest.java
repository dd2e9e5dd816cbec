package io.streamhouse.connect.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The commit skeleton both formats run, against a table that records what it was asked. */
class CommitLoopTest {
  private static final TopicPartition TP = new TopicPartition("orders", 0);
  private static final TableId TABLE = new TableId("lake", List.of("db"), "orders");
  private static final SnapshotKeys KEYS = new SnapshotKeys("sink");

  /** Watermark 10; the first {@code conflicts} commits lose a race. */
  private static final class FakeTable implements CommitLoop.Table {
    final List<Map<String, String>> summaries = new ArrayList<>();
    int refreshes;
    int conflicts;
    Watermarks watermarks = Watermarks.decode("orders:0=10");

    FakeTable(int conflicts) {
      this.conflicts = conflicts;
    }

    @Override
    public Watermarks refresh() {
      refreshes++;
      return watermarks;
    }

    @Override
    public CommitLoop.Committed commit(List<OfferedBatch> applying, Map<String, String> summary)
        throws CommitLoop.ConcurrentCommitException {
      summaries.add(Map.copyOf(summary));
      if (conflicts-- > 0) {
        throw new CommitLoop.ConcurrentCommitException("another committer", null);
      }
      return new CommitLoop.Committed(42, 5 * applying.size(), applying.size(), List.of());
    }
  }

  private static OfferedBatch batch(String id, long from, long to, long maxTimestamp) {
    return new OfferedBatch(
        id,
        0,
        Map.of(TP, new OffsetRange(from, to)),
        new PreparedFiles(1, new byte[0], 1, to - from, 100),
        maxTimestamp);
  }

  private static CheckedBatches<String> nothingRefused(List<OfferedBatch> batches) {
    return CheckedBatches.check(
        "sink",
        TABLE,
        batches,
        new CheckedBatches.FileReader<String>() {
          @Override
          public List<String> read(OfferedBatch batch) {
            return List.of(batch.batchId() + ".parquet");
          }

          @Override
          public String path(String file) {
            return file;
          }

          @Override
          public Optional<String> problem(String file) {
            return Optional.empty();
          }
        });
  }

  private static CommitOutcome run(FakeTable table, List<OfferedBatch> batches, boolean full) {
    return CommitLoop.run("sink", TABLE, 7, batches, nothingRefused(batches), full, KEYS, table);
  }

  @Test
  void aContiguousBatchIsCommittedWithItsWatermarksCommitIdAndValidThrough() {
    FakeTable table = new FakeTable(0);
    CommitOutcome outcome = run(table, List.of(batch("b", 10, 15, 1_000)), true);
    assertThat(outcome.decisions()).containsExactlyEntriesOf(Map.of("b", BatchPlan.Decision.APPLY));
    assertThat(outcome.snapshotId()).hasValue(42);
    assertThat(outcome.watermarks().asMap()).containsExactly(Map.entry(TP, 15L));
    assertThat(table.summaries)
        .singleElement()
        .isEqualTo(
            Map.of(
                "streamhouse.sink.watermarks", "orders:0=15",
                "streamhouse.sink.commit-id", "7",
                "streamhouse.sink.valid-through-ms", "1000"));
  }

  @Test
  void aPartialRoundSetsNoValidThrough() {
    FakeTable table = new FakeTable(0);
    run(table, List.of(batch("b", 10, 15, 1_000)), false);
    assertThat(table.summaries.get(0)).doesNotContainKey("streamhouse.sink.valid-through-ms");
  }

  @Test
  void aLostRaceIsPlannedAgainFromFreshWatermarks() {
    FakeTable table = new FakeTable(2);
    CommitOutcome outcome = run(table, List.of(batch("b", 10, 15, 1_000)), true);
    assertThat(outcome.snapshotId()).hasValue(42);
    assertThat(table.refreshes).isEqualTo(3);
  }

  @Test
  void whenEveryAttemptLosesTheCommitFailsAfterTheLimit() {
    FakeTable table = new FakeTable(Integer.MAX_VALUE);
    assertThatThrownBy(() -> run(table, List.of(batch("b", 10, 15, 1_000)), true))
        .isInstanceOf(CommitLoop.ConflictsExhaustedException.class)
        .hasMessageContaining("changed under 10 commit attempts")
        .hasMessageContaining("lake:db.orders");
    assertThat(table.refreshes).isEqualTo(CommitLoop.MAX_PLAN_ATTEMPTS);
  }

  @Test
  void batchesAlreadyInTheTableOrNotContinuingItMakeNoSnapshot() {
    FakeTable table = new FakeTable(0);
    CommitOutcome outcome =
        run(table, List.of(batch("old", 5, 10, 1), batch("gap", 12, 20, 1)), true);
    assertThat(outcome.decisions())
        .containsEntry("old", BatchPlan.Decision.ALREADY_PRESENT)
        .containsEntry("gap", BatchPlan.Decision.REJECT);
    assertThat(outcome.snapshotId()).isEmpty();
    assertThat(table.summaries).isEmpty();
  }
}
