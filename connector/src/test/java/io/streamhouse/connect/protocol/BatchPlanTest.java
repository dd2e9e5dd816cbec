package io.streamhouse.connect.protocol;

import static io.streamhouse.connect.protocol.BatchPlan.Decision.ALREADY_PRESENT;
import static io.streamhouse.connect.protocol.BatchPlan.Decision.APPLY;
import static io.streamhouse.connect.protocol.BatchPlan.Decision.REJECT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class BatchPlanTest {
  private static final TopicPartition A0 = new TopicPartition("a", 0);
  private static final TopicPartition A1 = new TopicPartition("a", 1);

  private static BatchPlan.Offer offer(String id, Object... tpFromTo) {
    Map<TopicPartition, OffsetRange> ranges = new LinkedHashMap<>();
    for (int i = 0; i < tpFromTo.length; i += 3) {
      ranges.put(
          (TopicPartition) tpFromTo[i],
          new OffsetRange((Integer) tpFromTo[i + 1], (Integer) tpFromTo[i + 2]));
    }
    return new BatchPlan.Offer(id, ranges);
  }

  @Test
  void aFirstBatchAppliesFromAnyOffsetAndSetsTheWatermarks() {
    BatchPlan plan = BatchPlan.of(Watermarks.EMPTY, List.of(offer("b1", A0, 40, 100, A1, 0, 7)));
    assertThat(plan.decisions()).containsExactly(Map.entry("b1", APPLY));
    assertThat(plan.after().asMap()).containsExactly(Map.entry(A0, 100L), Map.entry(A1, 7L));
  }

  @Test
  void aContiguousBatchApplies() {
    Watermarks wm = Watermarks.of(Map.of(A0, 100L));
    BatchPlan plan = BatchPlan.of(wm, List.of(offer("b2", A0, 100, 150)));
    assertThat(plan.decision("b2")).isEqualTo(APPLY);
    assertThat(plan.after().of(A0)).hasValue(150L);
  }

  @Test
  void aBatchAlreadyInTheTableIsAcknowledgedNotReapplied() {
    Watermarks wm = Watermarks.of(Map.of(A0, 150L, A1, 9L));
    BatchPlan plan =
        BatchPlan.of(
            wm, List.of(offer("again", A0, 100, 150, A1, 0, 9), offer("older", A0, 0, 100)));
    assertThat(plan.decisions())
        .containsEntry("again", ALREADY_PRESENT)
        .containsEntry("older", ALREADY_PRESENT);
    assertThat(plan.changesTable()).isFalse();
    assertThat(plan.after()).isEqualTo(wm);
  }

  @Test
  void aGapOrAnOverlapIsRejected() {
    Watermarks wm = Watermarks.of(Map.of(A0, 100L));
    BatchPlan plan =
        BatchPlan.of(wm, List.of(offer("gap", A0, 120, 130), offer("overlap", A0, 90, 110)));
    assertThat(plan.decisions()).containsEntry("gap", REJECT).containsEntry("overlap", REJECT);
    assertThat(plan.after()).isEqualTo(wm);
  }

  @Test
  void chainedBatchesOfSeveralRoundsApplyInOrder() {
    BatchPlan plan =
        BatchPlan.of(
            Watermarks.of(Map.of(A0, 10L)),
            List.of(offer("later", A0, 20, 30), offer("earlier", A0, 10, 20)));
    assertThat(plan.applied()).containsExactly("earlier", "later");
    assertThat(plan.after().of(A0)).hasValue(30L);
  }

  @Test
  void twoTasksOfferingTheSameFreshPartitionApplyOnlyOnce() {
    BatchPlan plan =
        BatchPlan.of(
            Watermarks.EMPTY, List.of(offer("zombie", A0, 0, 100), offer("new", A0, 0, 150)));
    // "new" sorts first and applies; the zombie's range lies inside it, so it is already present.
    assertThat(plan.decisions())
        .containsEntry("new", APPLY)
        .containsEntry("zombie", ALREADY_PRESENT);
    assertThat(plan.after().of(A0)).hasValue(150L);
    BatchPlan reversed =
        BatchPlan.of(
            Watermarks.EMPTY, List.of(offer("a-zombie", A0, 0, 100), offer("b-new", A0, 0, 150)));
    assertThat(reversed.decisions())
        .containsEntry("a-zombie", APPLY)
        .containsEntry("b-new", REJECT);
  }

  @Test
  void withoutWatermarksALaterBatchWaitsForTheEarlierOneOfItsPartition() {
    // Regression: "later" sorts first (same lowest from via a1, smaller id) but starts a0 at 1000;
    // applying it first would have made "earlier" look already present: 1000 records lost.
    BatchPlan plan =
        BatchPlan.of(
            Watermarks.EMPTY,
            List.of(
                offer("b-earlier", A0, 0, 1000), offer("a-later", A0, 1000, 5049, A1, 0, 4966)));
    assertThat(plan.decisions()).containsEntry("b-earlier", APPLY).containsEntry("a-later", APPLY);
    assertThat(plan.after().asMap())
        .containsExactlyInAnyOrderEntriesOf(Map.of(A0, 5049L, A1, 4966L));
  }

  @Test
  void aBatchThatNeverConnectsIsRejectedEvenWithoutWatermarks() {
    BatchPlan plan =
        BatchPlan.of(
            Watermarks.EMPTY, List.of(offer("first", A0, 0, 10), offer("gap", A0, 20, 30)));
    assertThat(plan.decisions()).containsEntry("first", APPLY).containsEntry("gap", REJECT);
  }

  @Test
  void aBatchPartlyPresentIsRejected() {
    BatchPlan plan =
        BatchPlan.of(
            Watermarks.of(Map.of(A0, 100L, A1, 5L)),
            List.of(offer("mixed", A0, 50, 100, A1, 5, 9)));
    assertThat(plan.decision("mixed")).isEqualTo(REJECT);
  }

  @Test
  void watermarksRoundTripThroughTheirEncoding() {
    Watermarks wm = Watermarks.of(Map.of(new TopicPartition("orders.eu-1", 12), 5L, A0, 0L));
    assertThat(wm.encode()).isEqualTo("a:0=0,orders.eu-1:12=5");
    assertThat(Watermarks.decode(wm.encode())).isEqualTo(wm);
    assertThat(Watermarks.decode("")).isEqualTo(Watermarks.EMPTY);
    assertThatThrownBy(() -> Watermarks.decode("a0=5"))
        .hasMessageContaining("Malformed watermark 'a0=5'");
  }

  @Test
  void rangesMustBeNonEmpty() {
    assertThatThrownBy(() -> new OffsetRange(5, 5)).hasMessage("Invalid offset range [5, 5)");
  }
}
