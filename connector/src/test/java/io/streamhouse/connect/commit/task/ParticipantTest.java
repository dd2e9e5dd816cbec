package io.streamhouse.connect.commit.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.TransactionCounts;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.routing.TableRouter.Destination;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.testing.RecordingChannel;
import io.streamhouse.connect.testing.SlowClosingFormat;
import io.streamhouse.connect.testing.TestRoutes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The task side of a commit round: files are closed outside the task's lock, so the task goes on
 * writing while a batch is prepared, and a reset in between voids the batch.
 */
class ParticipantTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TableId TABLE = new TableId("c", List.of("ns"), "t");
  private static final Destination TO = new Destination(TABLE, TestRoutes.topicTToTableNsT());

  private final SlowClosingFormat format = new SlowClosingFormat();
  private final RecordingChannel channel = new RecordingChannel();
  private final Participant participant = participant(0, 0);

  @AfterEach
  void openTheGate() {
    format.closing.countDown();
  }

  @Test
  void theTaskWritesOnWhileItsBatchIsClosedAndTheNextBatchFollowsIt() throws Exception {
    write(0, 10);
    CompletableFuture<Void> round = CompletableFuture.runAsync(() -> participant.onStartCommit(1));
    await().atMost(Duration.ofSeconds(10)).until(() -> format.detached.size() == 1);

    // The files of [0, 10) are being closed: the task writes on (the lock is free; a held lock
    // would block these calls until the gate opens), and the offsets stay in flight.
    CompletableFuture.runAsync(
            () -> {
              assertThat(participant.safeOffsets(Map.of(P0, 10L))).containsEntry(P0, 0L);
              writeUnchecked(10, 15);
            })
        .get(30, TimeUnit.SECONDS);
    assertThat(channel.batches()).isEmpty();

    format.closing.countDown();
    round.get(10, TimeUnit.SECONDS);
    assertThat(channel.batches())
        .singleElement()
        .satisfies(b -> assertThat(b.ranges()).containsEntry(P0, new OffsetRange(0, 10)));
    assertThat(channel.done()).isEqualTo(1);

    participant.onStartCommit(2);
    assertThat(channel.batches())
        .extracting(ControlEvent.BatchChunk::ranges)
        .containsExactly(
            Map.of(P0, new OffsetRange(0, 10)),
            Map.of(P0, new OffsetRange(0, 10)),
            Map.of(P0, new OffsetRange(10, 15)));
  }

  @Test
  void recordsOfTwoPartitionsShareTheTablesWriterAndKeepTheRangeOfEachPartition() throws Exception {
    format.closing.countDown();
    TopicPartition p1 = new TopicPartition("t", 1);
    participant.assigned(List.of(P0, p1));
    int perPartition = 2_055;
    for (int round = 0; round < 2; round++) {
      for (long i = 0; i < perPartition; i++) {
        long offset = round * perPartition + i;
        assertThat(participant.write(new SinkRecord("t", 0, null, null, null, "a", offset), P0, TO))
            .isTrue();
        assertThat(participant.write(new SinkRecord("t", 1, null, null, null, "b", offset), p1, TO))
            .isTrue();
      }
      participant.onStartCommit(round + 1);
    }

    assertThat(format.writersOpened).as("one writer").hasValue(1);
    assertThat(channel.batches())
        .extracting(ControlEvent.BatchChunk::ranges)
        .as("the first batch, offered again while undecided, then the second")
        .containsExactly(
            Map.of(P0, new OffsetRange(0, perPartition), p1, new OffsetRange(0, perPartition)),
            Map.of(P0, new OffsetRange(0, perPartition), p1, new OffsetRange(0, perPartition)),
            Map.of(
                P0,
                new OffsetRange(perPartition, 2L * perPartition),
                p1,
                new OffsetRange(perPartition, 2L * perPartition)));
    assertThat(channel.batches())
        .extracting(ControlEvent.BatchChunk::records)
        .containsOnly(2L * perPartition);
  }

  @Test
  void aRepeatedRequestOffersTheUndecidedBatchesAgainWithoutPreparingNewOnes() throws Exception {
    format.closing.countDown();
    write(0, 10);
    participant.onStartCommit(1);
    write(10, 15);
    participant.onStartCommit(1); // the coordinator asks again: a partition moved meanwhile
    participant.onStartCommit(0); // an older round is not answered at all

    assertThat(format.detached).hasSize(1);
    assertThat(channel.batches())
        .extracting(ControlEvent.BatchChunk::commitId, ControlEvent.BatchChunk::ranges)
        .containsExactly(
            tuple(1L, Map.of(P0, new OffsetRange(0, 10))),
            tuple(1L, Map.of(P0, new OffsetRange(0, 10))));
    assertThat(channel.done()).isEqualTo(2);
  }

  @Test
  void aBatchClosedAfterItsRoundEndedGoesIntoTheNextRoundBeforeTheNewFilesClose() throws Exception {
    format.closing.countDown();
    write(0, 10);
    participant.onStartCommit(1); // too late: the coordinator committed round 1 without it
    write(10, 15);
    format.closing = new CountDownLatch(1);
    CompletableFuture<Void> round = CompletableFuture.runAsync(() -> participant.onStartCommit(2));

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(channel.batches())
                    .extracting(ControlEvent.BatchChunk::commitId, ControlEvent.BatchChunk::ranges)
                    .containsExactly(
                        tuple(1L, Map.of(P0, new OffsetRange(0, 10))),
                        tuple(2L, Map.of(P0, new OffsetRange(0, 10)))));
    assertThat(channel.done()).isEqualTo(1); // round 2's own files are still closing

    format.closing.countDown();
    round.get(10, TimeUnit.SECONDS);
    assertThat(channel.batches())
        .extracting(ControlEvent.BatchChunk::commitId, ControlEvent.BatchChunk::ranges)
        .endsWith(tuple(2L, Map.of(P0, new OffsetRange(10, 15))));
    assertThat(channel.done()).isEqualTo(2);
  }

  /**
   * The table never saw the partition, so the first batch committed sets where it starts: the
   * hand-over's batch [10, 15) must wait while the round's batch [0, 10) is still closing, or [0,
   * 10) would later be taken as already present and its records lost.
   */
  @Test
  void aHandOverNeverCommitsABatchWhileAnEarlierOneOfItsPartitionsIsStillClosing()
      throws Exception {
    format.toleratesConcurrentCommitters = true;
    write(0, 10);
    CompletableFuture<Void> round = CompletableFuture.runAsync(() -> participant.onStartCommit(1));
    await().atMost(Duration.ofSeconds(10)).until(() -> format.detached.size() == 1);
    write(10, 15);
    CountDownLatch firstGate = format.closing;
    format.closing = new CountDownLatch(0); // the hand-over's files close at once

    assertThat(participant.handOver(400)).isFalse();
    assertThat(format.committed).isEmpty();
    assertThat(channel.batches()).isEmpty();

    firstGate.countDown();
    round.get(10, TimeUnit.SECONDS);
    // Once [0, 10) is closed, the round offers both: the coordinator applies them in order.
    assertThat(channel.batches())
        .extracting(ControlEvent.BatchChunk::ranges)
        .containsExactlyInAnyOrder(
            Map.of(P0, new OffsetRange(0, 10)), Map.of(P0, new OffsetRange(10, 15)));
  }

  @Test
  void aResetWhileTheBatchIsClosedVoidsItAndDeletesItsFiles() throws Exception {
    write(0, 10);
    CompletableFuture<Void> round = CompletableFuture.runAsync(() -> participant.onStartCommit(1));
    await().atMost(Duration.ofSeconds(10)).until(() -> format.detached.size() == 1);

    assertThat(participant.reset(Map.of(P0, 10L)).positions()).containsEntry(P0, 0L);
    format.closing.countDown();
    round.get(10, TimeUnit.SECONDS);

    assertThat(channel.batches()).isEmpty();
    assertThat(channel.done()).isEqualTo(1);
    assertThat(format.discarded).hasSize(1);
  }

  @Test
  void aBatchWhoseFilesCannotBeClosedKeepsItsOffsetsBackUntilTheTaskRewindsToThem()
      throws Exception {
    format.failClosing = true;
    format.closing.countDown();
    write(0, 10);
    assertThatThrownBy(() -> participant.onStartCommit(1))
        .hasMessageContaining(
            "Connector conn task 0: could not close the data files of tables [c:ns.t]")
        .hasRootCauseMessage("disk full");
    write(10, 15); // the task goes on until its next put or preCommit sees the reset request

    assertThat(participant.resetRequested()).isTrue();
    assertThat(participant.safeOffsets(Map.of(P0, 15L))).containsEntry(P0, 0L);
    assertThat(participant.reset(Map.of(P0, 15L)).positions()).containsEntry(P0, 0L);
    assertThat(channel.batches()).isEmpty();
  }

  @Test
  void theCommonPositionOfAPartitionIsTheLowestOfItsTablesAndNoneIfOneHasNone() throws Exception {
    TableId other = new TableId("c", List.of("ns"), "other");
    Destination toOther = new Destination(other, TO.route());
    format.watermarks.put(TABLE, Watermarks.of(Map.of(P0, 100L)));
    format.watermarks.put(other, Watermarks.of(Map.of(P0, 80L)));
    assertThat(participant.commonPosition(P0, List.of(TO, toOther))).hasValue(80L);
    assertThat(participant.commonPosition(new TopicPartition("t", 1), List.of(TO, toOther)))
        .as("a partition the tables never had")
        .isEmpty();
    write(100, 120); // this task's records count before they are committed
    assertThat(participant.commonPosition(P0, List.of(TO))).hasValue(120L);
    assertThat(participant.commonPosition(P0, List.of(TO, toOther))).hasValue(80L);
    assertThat(
            participant.commonPosition(
                P0,
                List.of(TO, new Destination(new TableId("c", List.of("ns"), "new"), TO.route()))))
        .as("a table without a watermark")
        .isEmpty();
  }

  @Test
  void aTaskLosingItsPartitionsHandsInItsBatchAndRewindsNothingOnceItIsCommitted()
      throws Exception {
    format.closing.countDown();
    write(0, 10);
    CompletableFuture<Void> coordinator =
        CompletableFuture.runAsync(() -> actAsCoordinator(BatchPlan.Decision.APPLY));
    assertThat(participant.handOver(10_000)).isTrue();
    assertThat(participant.safeOffsets(Map.of(P0, 10L))).containsEntry(P0, 10L);
    participant.revoked(List.of(P0));
    participant.reset(Map.of(P0, 10L));
    coordinator.get(10, TimeUnit.SECONDS);
    assertThat(channel.sent)
        .filteredOn(e -> e instanceof ControlEvent.RoundRequest)
        .singleElement()
        .isEqualTo(new ControlEvent.RoundRequest("conn", 0, 0));
    assertThat(channel.sent)
        .filteredOn(e -> e instanceof ControlEvent.TaskDone)
        .singleElement()
        .satisfies(
            e ->
                assertThat(((ControlEvent.TaskDone) e).assigned())
                    .as("the partitions being handed over are still reported as the task's")
                    .containsExactly(P0));
    assertThat(participant.rewoundOffsets()).isZero();
  }

  @Test
  void aHandOverThatIsNotCommittedInTimeLeavesTheOffsetsToReadAgainAndCountsThem()
      throws Exception {
    format.closing.countDown();
    write(0, 10);
    assertThat(participant.handOver(200)).isFalse(); // no coordinator answers
    assertThat(participant.reset(Map.of(P0, 10L)).positions()).containsEntry(P0, 0L);
    assertThat(participant.rewoundOffsets()).isEqualTo(10);
  }

  @Test
  void whereNoTableTakesASecondCommitterTheHandOverWaitsItsWholeTimeForTheCoordinator()
      throws Exception {
    format.closing.countDown();
    write(0, 10);
    long started = System.nanoTime();
    assertThat(participant.handOver(400)).isFalse(); // no coordinator answers
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .as("not half of it: the task cannot commit these batches itself")
        .isGreaterThanOrEqualTo(Duration.ofMillis(400));
    assertThat(format.committed).isEmpty();
  }

  @Test
  void withoutACoordinatorTheTaskCommitsItsOwnBatchWhereTheFormatToleratesASecondCommitter()
      throws Exception {
    format.closing.countDown();
    format.toleratesConcurrentCommitters = true;
    write(0, 10);
    assertThat(participant.handOver(200)).isTrue(); // no coordinator answers
    assertThat(participant.reset(Map.of(P0, 10L)).positions()).containsEntry(P0, 10L);
    assertThat(format.committed).hasSize(1);
    assertThat(format.watermarks(TABLE).asMap()).containsEntry(P0, 10L);
    assertThat(participant.rewoundOffsets()).isZero();
  }

  @Test
  void aRejectedHandOverEndsTheWaitAtOnce() throws Exception {
    format.closing.countDown();
    write(0, 10);
    CompletableFuture<Void> coordinator =
        CompletableFuture.runAsync(() -> actAsCoordinator(BatchPlan.Decision.REJECT));
    long started = System.nanoTime();
    assertThat(participant.handOver(60_000)).isFalse();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
    assertThat(participant.reset(Map.of(P0, 10L)).positions()).containsEntry(P0, 0L);
    coordinator.get(10, TimeUnit.SECONDS);
  }

  @Test
  void aStoppingTaskWhoseBatchesANextOwnerMayReadOnAfterLeavesOnceItOfferedThemInARound()
      throws Exception {
    format.closing.countDown();
    format.readOnAfter = true;
    Participant task1 = taskOne();
    task1.assigned(List.of(P0));
    writeTo(task1, 0, 10);
    assertThat(task1.handIn(true, 60_000)).isTrue();
    assertThat(channel.batches())
        .as("announced at the hand-in, for no round")
        .singleElement()
        .satisfies(c -> assertThat(c.commitId()).isEqualTo(ControlEvent.NO_ROUND));
    CompletableFuture<Void> coordinator =
        CompletableFuture.runAsync(() -> actAsCoordinator(task1, null)); // no decision

    task1.leave(60_000);

    coordinator.get(10, TimeUnit.SECONDS);
    assertThat(channel.batches())
        .as("offered in the round before it left")
        .anySatisfy(c -> assertThat(c.commitId()).isEqualTo(7));
    assertThat(task1.inFlightBatches()).as("still undecided").isEqualTo(1);
  }

  /**
   * No round took the stopping task's batches within a second (task 0 moving too, or busy): where a
   * second committer is allowed (Iceberg), it commits them itself rather than leave them to a next
   * owner that may not come (a connector paused).
   */
  @Test
  void aStoppingTaskWhoseBatchesNoRoundTookCommitsThemItselfWhereTheFormatAllows()
      throws Exception {
    format.closing.countDown();
    format.readOnAfter = true;
    format.toleratesConcurrentCommitters = true;
    Participant task1 = taskOne();
    task1.assigned(List.of(P0));
    writeTo(task1, 0, 10);
    assertThat(task1.handIn(true, 60_000)).isTrue();

    task1.leave(60_000); // no coordinator

    assertThat(format.committed).hasSize(1);
    assertThat(format.watermarks(TABLE).asMap()).containsEntry(P0, 10L);
    assertThat(task1.inFlightBatches()).isZero();
  }

  @Test
  void aStoppingTaskWaitsForTheDecisionWhereANextOwnerMayNotReadOnAfterItsBatches()
      throws Exception {
    format.closing.countDown();
    Participant task1 = taskOne();
    task1.assigned(List.of(P0));
    writeTo(task1, 0, 10);
    assertThat(task1.handIn(true, 60_000)).isTrue();
    CompletableFuture<Void> coordinator =
        CompletableFuture.runAsync(() -> actAsCoordinator(task1, BatchPlan.Decision.APPLY));

    task1.leave(60_000);

    coordinator.get(10, TimeUnit.SECONDS);
    assertThat(task1.inFlightBatches()).as("it left once its batch was decided").isZero();
  }

  @Test
  void aNextOwnerReadsOnAfterAHandedInBatchOffersItAndItsOwnBatchFollowsIt() throws Exception {
    Participant next = takeOverAfterAHandedInBatchOfOffsetsZeroToTen();

    for (long offset = 0; offset < 15; offset++) {
      assertThat(next.write(new SinkRecord("t", 0, null, null, null, "v", offset), P0, TO))
          .as("offset %d", offset)
          .isEqualTo(offset >= 10);
    }
    assertThat(next.safeOffsets(Map.of(P0, 15L)))
        .as("held back to the handed-in batch until it is decided")
        .containsEntry(P0, 0L);
    next.onStartCommit(8);
    List<ControlEvent.BatchChunk> offered =
        channel.batches().stream().filter(c -> c.commitId() == 8).toList();
    assertThat(offered)
        .extracting(ControlEvent.BatchChunk::batchId, c -> c.ranges().get(P0))
        .containsExactly(
            tuple("handed-in", new OffsetRange(0, 10)),
            tuple(offered.get(1).batchId(), new OffsetRange(10, 15)));
    Map<String, BatchPlan.Decision> decisions = new java.util.HashMap<>();
    offered.forEach(c -> decisions.put(c.batchId(), BatchPlan.Decision.APPLY));
    next.onTableCommitted(new ControlEvent.TableCommitted("conn", 8, TABLE, decisions));
    assertThat(next.safeOffsets(Map.of(P0, 15L))).containsEntry(P0, 15L);
    assertThat(next.resetRequested()).isFalse();
  }

  @Test
  void aRejectedBatchThatTheTaskReadOnAfterMakesItStartOverFromTheTableWatermarks()
      throws Exception {
    Participant next = takeOverAfterAHandedInBatchOfOffsetsZeroToTen();
    for (long offset = 0; offset < 15; offset++) {
      next.write(new SinkRecord("t", 0, null, null, null, "v", offset), P0, TO);
    }
    next.onTableCommitted(
        new ControlEvent.TableCommitted(
            "conn", 8, TABLE, Map.of("handed-in", BatchPlan.Decision.REJECT)));
    assertThat(next.resetRequested()).isTrue();
    assertThat(next.reset(Map.of(P0, 15L)).positions()).containsEntry(P0, 0L);
    assertThat(next.write(new SinkRecord("t", 0, null, null, null, "v", 0), P0, TO))
        .as("the table's watermark, not the rejected batch, says where it continues")
        .isTrue();
  }

  @Test
  void aTaskWithWritersGivenNewPartitionsStartsItsWritersOverAboveWhatItHandsIn() throws Exception {
    format.closing.countDown();
    format.readOnAfter = true;
    write(0, 10);
    assertThat(participant.startWritersOver(10_000)).isTrue();
    assertThat(participant.hasWriters()).isFalse();
    assertThat(participant.inFlightBatches()).as("handed in, undecided").isEqualTo(1);
    assertThat(format.preparedToWriteAfter).as("later writers number above it").hasValue(1);
    assertThat(participant.write(new SinkRecord("t", 0, null, null, null, "v", 5), P0, TO))
        .as("its own batch still tells where P0 continues")
        .isFalse();
  }

  @Test
  void aTaskWithWritersOfAFormatThatCannotWriteAfterUndecidedBatchesKeepsThem() throws Exception {
    format.closing.countDown();
    write(0, 10);
    assertThat(participant.startWritersOver(10_000)).isFalse();
    assertThat(participant.hasWriters()).isTrue();
    assertThat(participant.inFlightBatches()).isEqualTo(1);
  }

  /**
   * A task without writers given P0, for which another task handed in batch "handed-in" of offsets
   * 0-9, undecided: it reads on after it.
   */
  private Participant takeOverAfterAHandedInBatchOfOffsetsZeroToTen() {
    format.closing.countDown();
    format.readOnAfter = true;
    Participant next = taskOne();
    next.onBatchChunk(
        new ControlEvent.BatchChunk(
            "conn",
            ControlEvent.NO_ROUND,
            0,
            "handed-in",
            TABLE,
            Map.of(P0, new OffsetRange(0, 10)),
            -1,
            1,
            1,
            10,
            100,
            0,
            1,
            new byte[] {1},
            TransactionCounts.NONE));
    next.assigned(List.of(P0));
    next.hold(List.of(P0), 0, 10_000, false);
    List<TakeOverGate.Opened> opened = next.openable(1, true);
    assertThat(opened).extracting(TakeOverGate.Opened::partition).containsExactly(P0);
    next.forget(List.of(P0));
    assertThat(next.adopt(opened.get(0).adopted())).isEqualTo(1);
    assertThat(format.preparedToWriteAfter).hasValue(1);
    return next;
  }

  private Participant taskOne() {
    return participant(1, 0);
  }

  @Test
  void aTaskWithNothingInFlightHandsOverWithoutAskingForARound() throws Exception {
    participant.assigned(List.of(P0));
    assertThat(participant.handOver(10_000)).isTrue();
    assertThat(channel.sent).isEmpty();
  }

  @Test
  void aBatchCutAheadIsWhatTheRequestOffersAndRecordsWrittenAfterTheCutGoIntoTheNextRound()
      throws Exception {
    format.closing.countDown();
    write(0, 10);
    assertThat(participant.cutAhead()).isTrue();
    write(10, 15); // after the cut: the next round's
    assertThat(participant.cutAhead()).as("one cut per request").isFalse();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> participant.safeOffsets(Map.of(P0, 15L)).get(P0) == 0L);

    participant.onStartCommit(1);
    assertThat(format.detached).as("the request took nothing out itself").hasSize(1);
    assertThat(channel.batches())
        .extracting(ControlEvent.BatchChunk::commitId, ControlEvent.BatchChunk::ranges)
        .containsExactly(tuple(1L, Map.of(P0, new OffsetRange(0, 10))));
    assertThat(channel.done()).isEqualTo(1);
    decideAll(1, BatchPlan.Decision.APPLY);
    assertThat(participant.safeOffsets(Map.of(P0, 15L)))
        .as("[10, 15) is still in a writer")
        .containsEntry(P0, 10L);

    participant.onStartCommit(2); // no cut ahead of this one: it takes the files out itself
    assertThat(channel.batches())
        .extracting(ControlEvent.BatchChunk::commitId, ControlEvent.BatchChunk::ranges)
        .endsWith(tuple(2L, Map.of(P0, new OffsetRange(10, 15))));
    decideAll(2, BatchPlan.Decision.APPLY);
    assertThat(participant.safeOffsets(Map.of(P0, 15L))).containsEntry(P0, 15L);
  }

  @Test
  void aRequestThatComesWhileTheCutIsClosingAnswersOnceItClosedAndTheTaskWritesOnMeanwhile()
      throws Exception {
    write(0, 10);
    assertThat(participant.cutAhead()).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> format.detached.size() == 1);
    write(10, 15); // the lock is free while the cut closes
    CompletableFuture<Void> round = CompletableFuture.runAsync(() -> participant.onStartCommit(1));
    assertThat(participant.safeOffsets(Map.of(P0, 15L))).containsEntry(P0, 0L);
    assertThat(channel.batches()).isEmpty(); // the gate is shut: nothing can be offered yet

    format.closing.countDown();
    round.get(10, TimeUnit.SECONDS);
    assertThat(channel.batches())
        .extracting(ControlEvent.BatchChunk::ranges)
        .containsExactly(Map.of(P0, new OffsetRange(0, 10)));
    assertThat(channel.done()).isEqualTo(1);
    assertThat(format.detached).hasSize(1);
  }

  @Test
  void aResetVoidsTheBatchCutAheadAndTheNextRequestTakesTheFilesOutItself() throws Exception {
    write(0, 10);
    assertThat(participant.cutAhead()).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> format.detached.size() == 1);
    assertThat(participant.reset(Map.of(P0, 10L)).positions()).containsEntry(P0, 0L);
    format.closing.countDown();
    await().atMost(Duration.ofSeconds(10)).until(() -> format.discarded.size() == 1);

    write(0, 5); // read again from the durable offset
    participant.onStartCommit(1);
    assertThat(format.detached).hasSize(2);
    assertThat(channel.batches())
        .extracting(ControlEvent.BatchChunk::ranges)
        .containsExactly(Map.of(P0, new OffsetRange(0, 5)));
    assertThat(participant.safeOffsets(Map.of(P0, 5L))).containsEntry(P0, 0L);
  }

  @Test
  void aHandOverHandsInTheBatchCutAheadWithTheRest() throws Exception {
    write(0, 10);
    assertThat(participant.cutAhead()).isTrue();
    write(10, 15);
    CountDownLatch cutGate = format.closing;
    CompletableFuture<Void> coordinator =
        CompletableFuture.runAsync(
            () -> {
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(
                      () ->
                          channel.sent.stream()
                              .anyMatch(e -> e instanceof ControlEvent.RoundRequest));
              cutGate.countDown(); // the cut closes while the round waits for it
              participant.onStartCommit(7);
              decideAll(7, BatchPlan.Decision.APPLY);
            });
    format.closing = new CountDownLatch(0); // the hand-over's own files close at once

    assertThat(participant.handOver(10_000)).isTrue();
    coordinator.get(10, TimeUnit.SECONDS);
    assertThat(channel.batches())
        .extracting(ControlEvent.BatchChunk::ranges)
        .containsExactlyInAnyOrder(
            Map.of(P0, new OffsetRange(0, 10)), Map.of(P0, new OffsetRange(10, 15)));
    assertThat(participant.safeOffsets(Map.of(P0, 15L))).containsEntry(P0, 15L);
    assertThat(participant.reset(Map.of(P0, 15L)).offsetsReadAgain()).isZero();
  }

  @Test
  void aCutAheadWhoseFilesCannotBeClosedFailsItsRequestAndHoldsItsOffsetsBack() throws Exception {
    format.failClosing = true;
    format.closing.countDown();
    write(0, 10);
    assertThat(participant.cutAhead()).isTrue();
    assertThatThrownBy(() -> participant.onStartCommit(1))
        .hasMessageContaining(
            "Connector conn task 0: could not close the data files of tables [c:ns.t]")
        .hasRootCauseMessage("disk full");
    assertThat(participant.resetRequested()).isTrue();
    assertThat(participant.safeOffsets(Map.of(P0, 10L))).containsEntry(P0, 0L);
    assertThat(channel.batches()).isEmpty();
  }

  @Test
  void withACommitIntervalTheTaskCutsAheadOfTheNextRequestOnItsOwn() throws Exception {
    format.closing.countDown();
    Participant timed = timedParticipant(1_000);
    try {
      // a flush long enough to be worth cutting ahead of
      format.closeMillis = AnswerSchedule.MIN_FLUSH_MS;
      timed.assigned(List.of(P0));
      timed.cutAheadIfDue();
      assertThat(format.detached).as("no request yet: nothing to schedule by").isEmpty();
      writeTo(timed, 0, 10);
      timed.onStartCommit(1); // the first request: from now on the next is expected
      writeTo(timed, 10, 20);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                timed.cutAheadIfDue();
                return format.detached.size() == 2;
              });
      writeTo(timed, 20, 25);
      timed.onStartCommit(2);
      assertThat(channel.batches())
          .extracting(ControlEvent.BatchChunk::commitId, ControlEvent.BatchChunk::ranges)
          .endsWith(tuple(2L, Map.of(P0, new OffsetRange(10, 20))));
    } finally {
      timed.close();
    }
  }

  /**
   * A request that comes long before the next is due (a hand-over's round, committed without
   * waiting for this task) takes nothing out of the writers: those records go with the next cut.
   */
  @Test
  void anUnscheduledRequestTakesNothingOutAndTheRecordsGoWithTheNextCut() throws Exception {
    format.closing.countDown();
    // An hour: the second request surely comes within half of it.
    Participant timed = timedParticipant(3_600_000);
    try {
      timed.assigned(List.of(P0));
      writeTo(timed, 0, 10);
      timed.onStartCommit(1); // the first request: taken out, whatever its time
      writeTo(timed, 10, 20);
      timed.onStartCommit(2);
      assertThat(format.detached).as("nothing taken out for request 2").hasSize(1);
      assertThat(channel.done()).isEqualTo(2);
      assertThat(channel.batches())
          .extracting(ControlEvent.BatchChunk::commitId, ControlEvent.BatchChunk::ranges)
          .containsExactly(
              tuple(1L, Map.of(P0, new OffsetRange(0, 10))),
              tuple(2L, Map.of(P0, new OffsetRange(0, 10)))); // undecided: offered again
      assertThat(timed.cutAhead()).isTrue();
      await().atMost(Duration.ofSeconds(10)).until(() -> !timed.closingAhead());
      timed.onStartCommit(3); // unscheduled too: it offers the cut ahead, whose files closed
      assertThat(channel.batches())
          .extracting(ControlEvent.BatchChunk::commitId, ControlEvent.BatchChunk::ranges)
          .contains(tuple(3L, Map.of(P0, new OffsetRange(10, 20))));
    } finally {
      timed.close();
    }
  }

  /**
   * A hand-over's round while the files of a batch cut ahead are still closing: the task answers at
   * once with what it has closed, and the cut goes with the next request.
   */
  @Test
  void anUnscheduledRequestDoesNotWaitForABatchCutAheadWhoseFilesAreClosing() throws Exception {
    Participant timed = timedParticipant(3_600_000);
    try {
      timed.assigned(List.of(P0));
      format.closing.countDown();
      writeTo(timed, 0, 10);
      timed.onStartCommit(1);
      format.closing = new CountDownLatch(1); // the cut's files do not close yet
      writeTo(timed, 10, 20);
      assertThat(timed.cutAhead()).isTrue();

      CompletableFuture<Void> request2 = CompletableFuture.runAsync(() -> timed.onStartCommit(2));

      await()
          .atMost(Duration.ofSeconds(30))
          .alias("answered while the cut's files are still closing")
          .until(() -> channel.done() == 2);
      request2.get(10, TimeUnit.SECONDS);
      assertThat(channel.batches())
          .filteredOn(c -> c.commitId() == 2)
          .extracting(ControlEvent.BatchChunk::ranges)
          .as("request 1's batch again, nothing of the cut")
          .containsExactly(Map.of(P0, new OffsetRange(0, 10)));
      format.closing.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> !timed.closingAhead());
      timed.onStartCommit(3);
      assertThat(channel.batches())
          .extracting(ControlEvent.BatchChunk::commitId, ControlEvent.BatchChunk::ranges)
          .contains(tuple(3L, Map.of(P0, new OffsetRange(10, 20))));
    } finally {
      timed.close();
    }
  }

  /** A participant that cuts ahead of requests expected every {@code commitIntervalMs}. */
  private Participant timedParticipant(long commitIntervalMs) {
    return participant(0, commitIntervalMs);
  }

  /** Task {@code taskId} over {@link #format} and {@link #channel}. */
  private Participant participant(int taskId, long commitIntervalMs) {
    return new Participant(
        "conn",
        taskId,
        Map.of("c", format),
        channel,
        new FileBudget(10, 64L << 20),
        FaultInjection.parse(""),
        commitIntervalMs,
        30_000,
        2);
  }

  private void decideAll(long commitId, BatchPlan.Decision decision) {
    Map<String, BatchPlan.Decision> decisions = new java.util.HashMap<>();
    channel.batches().stream()
        .filter(b -> b.commitId() == commitId)
        .forEach(b -> decisions.put(b.batchId(), decision));
    participant.onTableCommitted(
        new ControlEvent.TableCommitted("conn", commitId, TABLE, decisions));
  }

  private static void writeTo(Participant p, long from, long to) throws Exception {
    for (long offset = from; offset < to; offset++) {
      assertThat(p.write(new SinkRecord("t", 0, null, null, null, "v" + offset, offset), P0, TO))
          .isTrue();
    }
  }

  /**
   * Answers the participant's round request the way the coordinator does: a round, then a decision.
   */
  private void actAsCoordinator(BatchPlan.Decision decision) {
    actAsCoordinator(participant, decision);
  }

  /** The same for {@code task}; {@code decision} null: a round that never decides. */
  private void actAsCoordinator(Participant task, BatchPlan.Decision decision) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> channel.sent.stream().anyMatch(e -> e instanceof ControlEvent.RoundRequest));
    task.onStartCommit(7);
    if (decision == null) {
      return;
    }
    Map<String, BatchPlan.Decision> decisions = new java.util.HashMap<>();
    channel.batches().forEach(b -> decisions.put(b.batchId(), decision));
    assertThat(decisions).hasSize(1);
    task.onTableCommitted(new ControlEvent.TableCommitted("conn", 7, TABLE, decisions));
  }

  private void writeUnchecked(long from, long to) {
    try {
      write(from, to);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private void write(long from, long to) throws Exception {
    participant.assigned(List.of(P0));
    for (long offset = from; offset < to; offset++) {
      assertThat(
              participant.write(
                  new SinkRecord("t", 0, null, null, null, "v" + offset, offset), P0, TO))
          .isTrue();
    }
  }
}
