package io.streamhouse.connect.commit.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.TransactionCounts;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class TakeOverGateTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TopicPartition P1 = new TopicPartition("t", 1);
  private static final TableId TABLE = new TableId("c", List.of("ns"), "t");

  /** A channel that ends where the test says and has been read as far as the test says. */
  private static class OrderedChannel implements ControlChannel {
    long end;
    long read;
    int endQueries;

    @Override
    public boolean keepsOrder() {
      return true;
    }

    @Override
    public Map<Integer, Long> endOffsets() {
      endQueries++;
      return Map.of(0, end);
    }

    @Override
    public boolean readUpTo(Map<Integer, Long> ends) {
      return read >= ends.get(0);
    }

    @Override
    public void send(List<? extends ControlEvent> events) {}

    @Override
    public List<ControlEvent> poll(Duration timeout) {
      return List.of();
    }

    @Override
    public void wakeup() {}

    @Override
    public void close() {}
  }

  private static ControlEvent.BatchChunk chunk(String batchId, TopicPartition tp) {
    return new ControlEvent.BatchChunk(
        "conn",
        1,
        1,
        batchId,
        TABLE,
        Map.of(tp, new OffsetRange(0, 5)),
        0,
        1,
        1,
        5,
        100,
        0,
        1,
        new byte[] {1},
        TransactionCounts.NONE);
  }

  private static List<TopicPartition> opened(TakeOverGate gate, long now) {
    return gate.open(now, tp -> false, id -> false).stream()
        .map(TakeOverGate.Opened::partition)
        .toList();
  }

  @Test
  void aPartitionOpensOnceTheControlTopicWasReadPastItsAssignmentAndItsBatchesAreDecided() {
    OrderedChannel channel = new OrderedChannel();
    TakeOverGate gate = new TakeOverGate("conn-0", true, 30_000, 90_000);
    gate.offered(chunk("b1", P0), 0);
    channel.end = 10;
    gate.hold(List.of(P0, P1), 0, 0, false);

    gate.sync(channel);
    assertThat(opened(gate, 1)).as("not read up to the end of the assignment").isEmpty();
    channel.read = 10;
    gate.sync(channel);
    assertThat(channel.endQueries).as("the end is asked for once per assignment").isEqualTo(1);
    assertThat(opened(gate, 2)).as("P0's batch is undecided").containsExactly(P1);

    gate.decided(
        new ControlEvent.TableCommitted("conn", 1, TABLE, Map.of("b1", BatchPlan.Decision.APPLY)),
        3);
    assertThat(opened(gate, 3)).containsExactly(P0);
    assertThat(gate.anyHeld()).isFalse();
  }

  /** Chunk {@code chunk} of {@code chunks} of a batch announced at a hand-in (no round). */
  private static ControlEvent.BatchChunk announced(
      String batchId, TopicPartition tp, int chunk, int chunks) {
    return announced(batchId, tp, new OffsetRange(0, 5), chunk, chunks, new byte[] {1});
  }

  private static ControlEvent.BatchChunk announced(
      String batchId, TopicPartition tp, OffsetRange range, int chunk, int chunks, byte[] data) {
    return new ControlEvent.BatchChunk(
        "conn",
        ControlEvent.NO_ROUND,
        1,
        batchId,
        TABLE,
        Map.of(tp, range),
        0,
        1,
        1,
        5,
        data.length,
        chunk,
        chunks,
        data,
        TransactionCounts.NONE);
  }

  @Test
  void aPartitionNewToATaskWithoutWritersIsReadOnAfterTheBatchesAnnouncedAtAHandIn() {
    List<String> asked = new java.util.ArrayList<>();
    TakeOverGate gate =
        new TakeOverGate(
            "conn-0",
            false,
            30_000,
            90_000,
            c -> {
              asked.add(c.batchId());
              return c.batchId().startsWith("paimon")
                  ? java.util.Optional.of(io.streamhouse.connect.table.WriteAfter.NOTHING)
                  : java.util.Optional.empty();
            });
    gate.offered(announced("paimon-1", P0, 0, 1), 0);
    gate.offered(chunk("paimon-1", P0), 0); // the same batch offered in a round later
    gate.offered(announced("iceberg-1", P1, 0, 1), 0);
    gate.offered(announced("paimon-big", P1, 0, 2), 0); // in two chunks: not read on after
    gate.offered(chunk("paimon-round", P1), 0); // offered in a round only: its task lives on
    assertThat(asked)
        .as("only whole batches announced at hand-ins are looked at")
        .containsExactly("paimon-1", "iceberg-1");
    gate.hold(List.of(P0, P1), 0, 0, false);

    assertThat(gate.open(1, tp -> false, id -> false, false))
        .as("a task with writers waits for the decisions")
        .isEmpty();
    List<TakeOverGate.Opened> opened = gate.open(2, tp -> false, id -> false, true);
    assertThat(opened).extracting(TakeOverGate.Opened::partition).containsExactly(P0);
    assertThat(opened.get(0).adopted())
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.batch().batchId()).isEqualTo("paimon-1");
              assertThat(a.batch().ranges()).containsEntry(P0, new OffsetRange(0, 5));
              assertThat(a.batch().files().payload()).containsExactly(1);
              assertThat(a.table()).isEqualTo(TABLE);
            });
    assertThat(gate.holds(P1)).as("P1 has batches that cannot be read on after").isTrue();
  }

  /** A gate for which a next owner may read on after every batch announced at a hand-in. */
  private static TakeOverGate readingOnAfterEveryHandIn() {
    return new TakeOverGate(
        "conn-0",
        false,
        30_000,
        90_000,
        c -> java.util.Optional.of(io.streamhouse.connect.table.WriteAfter.NOTHING));
  }

  @Test
  void aPartitionWithTheTasksOwnBatchOrReturningToItIsNotReadOnAfterOtherBatches() {
    TakeOverGate gate = readingOnAfterEveryHandIn();
    gate.offered(announced("other", P0, 0, 1), 0);
    gate.hold(List.of(P0), 0, 0, false);
    assertThat(gate.open(1, tp -> true, id -> false, true)).isEmpty();
    gate.release(List.of(P0));
    gate.hold(List.of(P0), 1, 0, true);
    assertThat(gate.open(2, tp -> false, id -> false, true)).isEmpty();
  }

  @Test
  void theFilesKeptForNextOwnersAreBounded() {
    TakeOverGate gate = readingOnAfterEveryHandIn();
    int chunkBytes = ControlChannel.CHUNK_BYTES;
    int fit = (int) (UndecidedBatches.MAX_ADOPTABLE_BYTES / chunkBytes);
    for (int i = 0; i <= fit; i++) {
      TopicPartition tp = new TopicPartition("t", 100 + i);
      gate.offered(announced("b" + i, tp, new OffsetRange(0, 5), 0, 1, new byte[chunkBytes]), 0);
    }
    TopicPartition first = new TopicPartition("t", 100);
    TopicPartition beyond = new TopicPartition("t", 100 + fit);
    gate.hold(List.of(first, beyond), 0, 0, false);
    assertThat(gate.open(1, tp -> false, id -> false, true))
        .extracting(TakeOverGate.Opened::partition)
        .containsExactly(first);
    gate.decided(
        new ControlEvent.TableCommitted("conn", 1, TABLE, Map.of("b0", BatchPlan.Decision.APPLY)),
        2);
    gate.offered(announced("again", first, new OffsetRange(5, 9), 0, 1, new byte[chunkBytes]), 3);
    gate.hold(List.of(first), 3, 0, false);
    assertThat(gate.open(4, tp -> false, id -> false, true))
        .as("a decided batch's files make room again")
        .extracting(TakeOverGate.Opened::partition)
        .containsExactly(first);
  }

  @Test
  void thisTasksOwnBatchInFlightHoldsItsPartition() {
    TakeOverGate gate = new TakeOverGate("conn-0", false, 30_000, 90_000);
    gate.hold(List.of(P0), 0, 0, false);
    assertThat(gate.open(1, tp -> tp.equals(P0), id -> false)).isEmpty();
    assertThat(gate.open(2, tp -> false, id -> false))
        .extracting(TakeOverGate.Opened::partition)
        .containsExactly(P0);
  }

  @Test
  void aReturningPartitionWaitsForOtherTasksBatchesOnlyNotForItsOwn() {
    TakeOverGate gate = new TakeOverGate("conn-0", false, 30_000, 90_000);
    gate.offered(chunk("own", P0), 0);
    gate.offered(chunk("zombie", P1), 0);
    gate.hold(List.of(P0, P1), 0, 0, true);

    List<TakeOverGate.Opened> opened = gate.open(1, tp -> true, "own"::equals);
    assertThat(opened)
        .as("P0's only batch is the task's own; P1 has a batch of another task")
        .extracting(TakeOverGate.Opened::partition)
        .containsExactly(P0);
    assertThat(opened.get(0).expired()).isFalse();

    gate.decided(
        new ControlEvent.TableCommitted(
            "conn", 1, TABLE, Map.of("zombie", BatchPlan.Decision.APPLY)),
        2);
    assertThat(gate.open(2, tp -> true, "own"::equals))
        .extracting(TakeOverGate.Opened::partition)
        .containsExactly(P1);
  }

  @Test
  void aBatchNamedAfterItsDecisionHoldsNothing() {
    TakeOverGate gate = new TakeOverGate("conn-0", false, 30_000, 90_000);
    gate.decided(
        new ControlEvent.TableCommitted("conn", 1, TABLE, Map.of("b1", BatchPlan.Decision.APPLY)),
        0);
    gate.offered(chunk("b1", P0), 1); // handed in by a task that had not heard the decision yet
    gate.hold(List.of(P0), 2, 0, false);
    assertThat(opened(gate, 3)).containsExactly(P0);
    assertThat(gate.tracked()).isZero();

    gate.decided(
        new ControlEvent.TableCommitted("conn", 2, TABLE, Map.of("b2", BatchPlan.Decision.APPLY)),
        90_001);
    gate.offered(chunk("b1", P0), 90_002);
    assertThat(gate.tracked()).as("decided more than 90 s ago: no longer remembered").isOne();
  }

  @Test
  void aPartitionNewToTheTaskWaitsForTheTasksOwnBatchesToo() {
    TakeOverGate gate = new TakeOverGate("conn-0", false, 30_000, 90_000);
    gate.offered(chunk("own", P0), 0);
    gate.hold(List.of(P0), 0, 0, false);
    assertThat(gate.open(1, tp -> true, "own"::equals)).isEmpty();
  }

  @Test
  void aBatchNobodyDecidesHoldsItsPartitionUntilTheDeadlineAndARoundThatHadItsTime() {
    TakeOverGate gate = new TakeOverGate("conn-0", false, 30_000, 90_000);
    gate.offered(chunk("undecided", P0), 0);
    gate.hold(List.of(P0), 0, 0, false);
    gate.roundStarted(7, 10_000);
    gate.offered(chunk("undecided", P0), 10_100); // offered again, never decided
    gate.roundStarted(7, 35_000); // the same round heard again: not a new one
    assertThat(gate.open(39_999, tp -> false, id -> false))
        .as("past the deadline, but the round since has not had commit.timeout.ms")
        .isEmpty();
    assertThat(gate.open(40_000, tp -> false, id -> false))
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.expired()).isTrue();
              assertThat(o.waitedMs()).isEqualTo(40_000);
            });
  }

  @Test
  void whileNoRoundIsStartedAHoldRunsOutOnlyAfterTwiceItsWait() {
    TakeOverGate gate = new TakeOverGate("conn-0", false, 30_000, 90_000);
    gate.offered(chunk("undecided", P0), 0);
    gate.hold(List.of(P0), 0, 0, false);
    assertThat(gate.open(59_999, tp -> false, id -> false))
        .as("no coordinator since the hold: nothing could have decided the batch")
        .isEmpty();
    assertThat(gate.open(60_000, tp -> false, id -> false))
        .singleElement()
        .satisfies(o -> assertThat(o.expired()).isTrue());
  }

  @Test
  void whileNoRoundIsStartedALiveTasksBatchIsNotTakenForADeadOnes() {
    // The coordinator moves with its worker: for longer than an interval and a timeout nobody
    // offers anything, yet the batch's task lives and offers it in the first round after.
    TakeOverGate gate = new TakeOverGate("conn-0", false, 10_000, 12_000);
    gate.roundStarted(1, 0);
    gate.offered(chunk("alive", P0), 100);
    gate.hold(List.of(P0), 1_000, 20_000, false);
    assertThat(opened(gate, 21_000)).as("12 s unseen, but no round since").isEmpty();
    assertThat(opened(gate, 29_999)).isEmpty();

    gate.roundStarted(2, 30_000);
    gate.offered(chunk("alive", P0), 30_100);
    gate.decided(
        new ControlEvent.TableCommitted(
            "conn", 2, TABLE, Map.of("alive", BatchPlan.Decision.APPLY)),
        30_500);
    assertThat(gate.open(30_500, tp -> false, id -> false))
        .singleElement()
        .satisfies(o -> assertThat(o.expired()).as("decided, not run out").isFalse());
  }

  @Test
  void aBatchNotOfferedAgainForLongIsForgottenAndTheTrackedBatchesAreBounded() {
    TakeOverGate gate = new TakeOverGate("conn-0", false, 30_000, 90_000);
    gate.offered(chunk("old", P0), 0);
    gate.roundStarted(1, 10);
    gate.hold(List.of(P0), 100_000, 0, false);
    assertThat(opened(gate, 100_001))
        .as("not offered again for 90 s nor in the round since: its task is gone")
        .containsExactly(P0);

    for (int i = 0; i <= UndecidedBatches.MAX_TRACKED; i++) {
      gate.offered(chunk("b" + i, P1), 200_000);
    }
    assertThat(gate.tracked()).isEqualTo(UndecidedBatches.MAX_TRACKED);
  }

  @Test
  void revokedPartitionsAreHeldNoLonger() {
    TakeOverGate gate = new TakeOverGate("conn-0", false, 30_000, 90_000);
    gate.offered(chunk("b1", P0), 0);
    gate.hold(List.of(P0), 0, 0, false);
    gate.release(List.of(P0));
    assertThat(gate.holds(P0)).isFalse();
    assertThat(gate.open(1, tp -> false, id -> false)).isEmpty();
  }

  @Test
  void aFailureToFindTheEndIsTriedAgain() {
    Map<String, Integer> calls = new HashMap<>();
    OrderedChannel failingOnce =
        new OrderedChannel() {
          @Override
          public Map<Integer, Long> endOffsets() {
            if (calls.merge("end", 1, Integer::sum) == 1) {
              throw new org.apache.kafka.common.errors.TimeoutException("no broker");
            }
            return Map.of(0, 0L);
          }
        };
    TakeOverGate gate = new TakeOverGate("conn-0", true, 30_000, 90_000);
    gate.hold(List.of(P0), 0, 0, false);
    gate.sync(failingOnce);
    assertThat(opened(gate, 1)).isEmpty();
    gate.sync(failingOnce);
    assertThat(opened(gate, 2)).containsExactly(P0);
  }
}
