package io.streamhouse.connect.commit.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.testing.SlowClosingFormat;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class InFlightBatchesTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TableId TABLE = new TableId("c", List.of("ns"), "t");

  private static TableWriters.Detached detached(long from, long to) {
    return new TableWriters.Detached(
        TABLE, Map.of(P0, new OffsetRange(from, to)), -1, () -> files(to - from));
  }

  private static PreparedFiles files(long records) {
    return new PreparedFiles(1, new byte[] {1}, 1, records, records * 10);
  }

  @Test
  void batchesAreOfferedInTheOrderTheyWereCutWhicheverClosedFirst() {
    InFlightBatches batches = new InFlightBatches("conn", 0, Map.of("c", new SlowClosingFormat()));
    InFlightBatches.Preparing cutAhead = batches.preparing(List.of(detached(0, 10))).get(0);
    InFlightBatches.Preparing handedIn = batches.preparing(List.of(detached(10, 20))).get(0);

    batches.closed(handedIn, files(10)); // the hand-over's batch closes before the one cut ahead
    assertThat(batches.offerable()).as("the earlier batch is still closing").isEmpty();
    batches.closed(cutAhead, files(10));

    assertThat(batches.offerable())
        .extracting(p -> p.batch().batchId())
        .as("a coordinator that takes a prefix of the answer never gets [10, 20) without [0, 10)")
        .containsExactly(cutAhead.batchId(), handedIn.batchId());
  }

  /**
   * A batch found already present (another writer's commit of its offsets after a hand-over or a
   * zombie's, or its own commit whose answer was lost): a writer that counts on its files (a keyed
   * table's key index holds their rows) makes the task start over, and the files are not deleted
   * (they may be the table's); any other writer goes on.
   */
  @Test
  void anAlreadyPresentBatchStartsTheTaskOverOnlyWhenItsWriterCountsOnItsFiles() {
    SlowClosingFormat format = new SlowClosingFormat();
    InFlightBatches batches = new InFlightBatches("conn", 0, Map.of("c", format));
    InFlightBatches.Preparing append = batches.preparing(List.of(detached(0, 10))).get(0);
    batches.closed(append, files(10));
    assertThat(batches.decided(append.batchId(), BatchPlan.Decision.ALREADY_PRESENT)).isFalse();
    assertThat(batches.isEmpty()).isTrue();

    format.writersCountOnFiles = true;
    InFlightBatches.Preparing keyed = batches.preparing(List.of(detached(10, 20))).get(0);
    batches.closed(keyed, files(10));
    assertThat(batches.decided(keyed.batchId(), BatchPlan.Decision.ALREADY_PRESENT)).isTrue();
    assertThat(batches.isEmpty()).isTrue();
    assertThat(format.discarded).isEmpty();

    OfferedBatch adopted =
        new OfferedBatch("other", 1, Map.of(P0, new OffsetRange(20, 30)), files(10), -1);
    batches.adopt(TABLE, adopted);
    assertThat(batches.decided("other", BatchPlan.Decision.ALREADY_PRESENT))
        .as("another task's batch: this task's writers never counted on it")
        .isFalse();
  }

  /**
   * Transaction-consistent CDC: what a table's records hold of source transactions goes into the
   * table's batch at the cut and travels with it to the coordinator; a reset drops it with the
   * writers (their records are read and counted again).
   */
  @Test
  void theTransactionCountsOfATableGoWithItsBatchAndAResetDropsThem() {
    InFlightBatches batches = new InFlightBatches("conn", 0, Map.of("c", new SlowClosingFormat()));
    batches.tally().seen(TABLE, "t1", "bank.public.a");
    batches.tally().seen(TABLE, "t1", "bank.public.a");
    InFlightBatches.Preparing cut = batches.preparing(List.of(detached(0, 2))).get(0);
    OfferedBatch offered = batches.closed(cut, files(2)).batch();
    assertThat(offered.transactions().seen()).isEqualTo(Map.of("t1", Map.of("bank.public.a", 2L)));
    assertThat(batches.preparing(List.of(detached(2, 3))).get(0).transactions().isEmpty())
        .as("counted once")
        .isTrue();

    batches.tally().seen(TABLE, "t2", "bank.public.a");
    batches.clear();
    assertThat(batches.preparing(List.of(detached(0, 1))).get(0).transactions().isEmpty()).isTrue();
  }
}
