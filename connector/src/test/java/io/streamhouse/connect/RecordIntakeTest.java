package io.streamhouse.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.streamhouse.connect.commit.task.Participant;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.errors.BadRecordHandler;
import io.streamhouse.connect.errors.DeadLetterRows;
import io.streamhouse.connect.monitor.DeadLetterMetrics;
import io.streamhouse.connect.monitor.PluginGauges;
import io.streamhouse.connect.monitor.TaskMetrics;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.TransactionCounts;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.routing.TableRouter;
import io.streamhouse.connect.testing.RecordingChannel;
import io.streamhouse.connect.testing.SlowClosingFormat;
import io.streamhouse.connect.testing.TestRoutes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * What a task does with Connect's calls, against a format that keeps watermarks in memory and a
 * channel that records what the task sends (no broker, no worker): put, the skip-ahead to what the
 * tables hold, rewinds after a rejection, and the hand-over on revocation.
 */
class RecordIntakeTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TableId TABLE = new TableId("c", List.of("ns"), "t");
  private static final RouteSettings ROUTE = TestRoutes.topicTToTableNsT();

  private final SlowClosingFormat format = new SlowClosingFormat();
  private final RecordingChannel channel = new RecordingChannel();
  private final Participant participant = format.participantOn(channel);
  private final List<Map<TopicPartition, Long>> seeks = new ArrayList<>();
  private final RecordIntake.Seeker seeker = seeks::add;

  private RecordIntake intake(boolean tablesKnownByTopic) {
    format.closing.countDown(); // files close at once
    return new RecordIntake(
        "conn-0",
        participant,
        new TableRouter(List.of(ROUTE)),
        new BadRecordHandler("conn", 0, false, null),
        null,
        new TaskMetrics(
            PluginGauges.none(), () -> 0, participant::rewoundOffsets, () -> 0, () -> 0),
        seeker,
        200,
        tablesKnownByTopic,
        null);
  }

  /** An intake given P0, whose table holds its records below {@code watermark}. */
  private RecordIntake assignedP0WhoseTableHoldsBelow(long watermark) {
    format.watermarks.put(TABLE, Watermarks.of(Map.of(P0, watermark)));
    RecordIntake intake = intake(true);
    intake.assigned(List.of(P0));
    return intake;
  }

  private static List<SinkRecord> records(long from, long to) {
    return LongStream.range(from, to)
        .mapToObj(o -> new SinkRecord("t", 0, null, null, null, "v" + o, o))
        .toList();
  }

  private void coordinatorDecides(BatchPlan.Decision decision) {
    participant.onStartCommit(1);
    Map<String, BatchPlan.Decision> decisions = new java.util.HashMap<>();
    channel.batches().forEach(b -> decisions.put(b.batchId(), decision));
    participant.onTableCommitted(new ControlEvent.TableCommitted("conn", 1, TABLE, decisions));
  }

  @Test
  void putWritesEveryRecordAndConnectCommitsOnlyWhatATableHolds() {
    RecordIntake intake = intake(true);
    intake.assigned(List.of(P0));
    intake.put(records(0, 10));
    assertThat(intake.durableOffsets(Map.of(P0, 10L)))
        .as("written, not committed")
        .containsEntry(P0, 0L);

    coordinatorDecides(BatchPlan.Decision.APPLY);
    assertThat(channel.batches())
        .singleElement()
        .satisfies(b -> assertThat(b.ranges()).containsEntry(P0, new OffsetRange(0, 10)));
    assertThat(intake.durableOffsets(Map.of(P0, 10L))).containsEntry(P0, 10L);
    assertThat(seeks).isEmpty();
  }

  @Test
  void theFirstRecordsOfAPartitionSkipToWhatItsTablesHoldAndAreNotWrittenAgain() {
    RecordIntake intake = assignedP0WhoseTableHoldsBelow(100);
    intake.put(records(0, 5));
    assertThat(seeks).containsExactly(Map.of(P0, 99L));

    participant.onStartCommit(1);
    assertThat(channel.batches()).as("records below the watermark are not written").isEmpty();

    intake.put(records(99, 103));
    assertThat(seeks).as("once per assignment").hasSize(1);
    participant.onStartCommit(2);
    assertThat(channel.batches())
        .singleElement()
        .satisfies(b -> assertThat(b.ranges()).containsEntry(P0, new OffsetRange(100, 103)));
  }

  @Test
  void aFirstBatchAcrossWhatTheTablesHoldIsWrittenFromThereOn() {
    RecordIntake intake = assignedP0WhoseTableHoldsBelow(100);
    intake.put(records(95, 105));
    assertThat(seeks).as("the batch reaches past what the table holds: no seek").isEmpty();
    participant.onStartCommit(1);
    assertThat(channel.batches())
        .singleElement()
        .satisfies(b -> assertThat(b.ranges()).containsEntry(P0, new OffsetRange(100, 105)));

    coordinatorDecides(BatchPlan.Decision.APPLY);
    intake.put(records(105, 108));
    participant.onStartCommit(2);
    assertThat(channel.batches())
        .last()
        .satisfies(b -> assertThat(b.ranges()).containsEntry(P0, new OffsetRange(105, 108)));
  }

  @Test
  void withTransformsARecordsTablesMayNotFollowFromItsTopicSoNothingIsSkippedAhead() {
    format.watermarks.put(TABLE, Watermarks.of(Map.of(P0, 100L)));
    RecordIntake intake = intake(false);
    intake.assigned(List.of(P0));
    intake.put(records(0, 5));
    assertThat(seeks).isEmpty();
  }

  @Test
  void aRejectedBatchRewindsTheTaskToItsDurableOffsetsAtItsNextCall() {
    RecordIntake intake = intake(true);
    intake.assigned(List.of(P0));
    intake.put(records(0, 10));
    coordinatorDecides(BatchPlan.Decision.REJECT);

    intake.put(records(10, 12));
    assertThat(seeks).containsExactly(Map.of(P0, 0L));
    assertThat(participant.rewoundOffsets())
        .as("[0, 10) were written and are read again")
        .isEqualTo(10);
    assertThat(intake.durableOffsets(Map.of(P0, 12L))).containsEntry(P0, 0L);

    intake.put(records(0, 3)); // read again from the durable offset
    participant.onStartCommit(2);
    assertThat(channel.batches().get(channel.batches().size() - 1).ranges())
        .containsEntry(P0, new OffsetRange(0, 3));
  }

  /**
   * A batch of runs per partition, a partition coming back after another's run: a rewind takes
   * every partition back over everything the batch wrote of it (P0: 6 records, P1: 3).
   */
  @Test
  void aRewindCountsEveryRunOfABatchWhosePartitionsTakeTurns() {
    TopicPartition p1 = new TopicPartition("t", 1);
    RecordIntake intake = intake(true);
    intake.assigned(List.of(P0, p1));
    List<SinkRecord> batch = new ArrayList<>(records(0, 3));
    LongStream.range(0, 3)
        .mapToObj(o -> new SinkRecord("t", 1, null, null, null, "w" + o, o))
        .forEach(batch::add);
    batch.addAll(records(3, 6));
    intake.put(batch);
    coordinatorDecides(BatchPlan.Decision.REJECT);

    intake.put(records(6, 7));
    assertThat(seeks).containsExactly(Map.of(P0, 0L, p1, 0L));
    assertThat(participant.rewoundOffsets()).isEqualTo(9);
  }

  @Test
  void onRevocationTheTaskHandsItsWorkInAndNothingIsReadAgain() {
    format.toleratesConcurrentCommitters = true; // no coordinator here: the task commits itself
    RecordIntake intake = intake(true);
    intake.assigned(List.of(P0));
    intake.put(records(0, 10));

    intake.revoked(List.of(P0));
    assertThat(channel.sent)
        .as("the revocation asks for a round and does not wait for it")
        .anySatisfy(e -> assertThat(e).isInstanceOf(ControlEvent.RoundRequest.class));
    assertThat(format.watermarks(TABLE).asMap()).doesNotContainKey(P0);
    assertThat(participant.inFlightBatches()).isEqualTo(1);

    intake.stopping(); // no coordinator answers: the stopping task commits its own batch
    assertThat(format.watermarks(TABLE).asMap()).containsEntry(P0, 10L);
    assertThat(channel.sent)
        .as("the next owner of the partition learns of the decision")
        .anySatisfy(e -> assertThat(e).isInstanceOf(ControlEvent.TableCommitted.class));
    assertThat(participant.rewoundOffsets()).isZero();
    assertThat(seeks).isEmpty();
    assertThat(participant.assignedPartitions()).isEmpty();
  }

  @Test
  void withoutACoordinatorTheRevokedTaskCommitsWhatItHandedInItselfAndSaysSo() {
    format.toleratesConcurrentCommitters = true;
    RecordIntake intake = intake(true);
    intake.assigned(List.of(P0));
    intake.put(records(0, 10));
    intake.revoked(List.of(P0)); // the task goes on: it keeps other partitions, or gets new ones

    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              participant.commitOwnIfDue(); // the control thread's call
              return format.watermarks(TABLE).asMap().containsKey(P0);
            });
    assertThat(format.watermarks(TABLE).asMap()).containsEntry(P0, 10L);
    assertThat(participant.inFlightBatches()).isZero();
    assertThat(channel.sent)
        .as("the next owner of the partition learns of the decision")
        .anySatisfy(
            e ->
                assertThat(e)
                    .isInstanceOfSatisfying(
                        ControlEvent.TableCommitted.class,
                        c -> assertThat(c.decisions()).containsValue(BatchPlan.Decision.APPLY)));
  }

  @Test
  void aPartitionWhoseHandedInBatchIsUndecidedIsOpenedOnlyAfterTheDecision() {
    RecordIntake intake = intake(true);
    participant.onBatchChunk(chunkOfAnotherTask("conn-1-b1", P0, 0, 5));
    CompletableFuture<Void> opening =
        CompletableFuture.runAsync(() -> intake.assigned(List.of(P0)));
    await().atMost(Duration.ofSeconds(10)).until(() -> participant.holds(P0));
    assertThat(opening).as("open() waits while the batch is undecided").isNotDone();

    format.watermarks.put(TABLE, Watermarks.of(Map.of(P0, 5L)));
    participant.onTableCommitted(
        new ControlEvent.TableCommitted(
            "conn", 1, TABLE, Map.of("conn-1-b1", BatchPlan.Decision.APPLY)));
    opening.join();
    assertThat(participant.holds(P0)).isFalse();
    intake.put(records(0, 7)); // from Connect's committed offset, 0
    participant.onStartCommit(2);
    assertThat(channel.batches())
        .as("the records the other task committed are skipped")
        .singleElement()
        .satisfies(b -> assertThat(b.ranges()).containsEntry(P0, new OffsetRange(5, 7)));
  }

  @Test
  void aPartitionGivenBackToItsTaskGoesOnAfterItsOwnHandedInBatchWithoutWaitingForIt() {
    RecordIntake intake = intake(true);
    intake.assigned(List.of(P0));
    intake.put(records(0, 10));
    intake.revoked(List.of(P0)); // an eager rebalance: every partition goes
    ControlEvent.BatchChunk announced = channel.batches().get(0);

    intake.assigned(List.of(P0)); // returns: only other tasks' batches would hold P0
    assertThat(participant.holds(P0)).isFalse();
    assertThat(participant.inFlightBatches()).as("its own batch is still undecided").isEqualTo(1);
    intake.put(records(0, 5)); // from Connect's committed offset, 0
    assertThat(seeks).as("to the last record the task wrote").containsExactly(Map.of(P0, 9L));
    intake.put(records(9, 12));
    assertThat(format.writersOpened).as("the writer was kept").hasValue(1);

    participant.onStartCommit(2);
    assertThat(channel.batches().subList(1, channel.batches().size()))
        .as("the handed-in batch is offered again, the new one goes on after it")
        .extracting(ControlEvent.BatchChunk::batchId, b -> b.ranges().get(P0))
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(announced.batchId(), new OffsetRange(0, 10)),
            org.assertj.core.groups.Tuple.tuple(
                channel.batches().get(channel.batches().size() - 1).batchId(),
                new OffsetRange(10, 12)));
  }

  @Test
  void anOtherTasksUndecidedBatchStillHoldsAReturningPartition() {
    RecordIntake intake = intake(true);
    intake.assigned(List.of(P0));
    intake.put(records(0, 10));
    intake.revoked(List.of(P0));
    participant.onBatchChunk(chunkOfAnotherTask("conn-1-zombie", P0, 0, 10));

    CompletableFuture<Void> opening =
        CompletableFuture.runAsync(() -> intake.assigned(List.of(P0)));
    await().atMost(Duration.ofSeconds(10)).until(() -> participant.holds(P0));
    assertThat(opening).as("a batch of another task covers P0").isNotDone();
    participant.onTableCommitted(
        new ControlEvent.TableCommitted(
            "conn", 1, TABLE, Map.of("conn-1-zombie", BatchPlan.Decision.APPLY)));
    opening.join();
    assertThat(participant.holds(P0)).isFalse();
  }

  @Test
  void anAssignmentWithAPartitionNewToTheTaskWaitsForItsOwnBatchesAndStartsNewWriters() {
    TopicPartition p1 = new TopicPartition("t", 1);
    RecordIntake intake = intake(true);
    intake.assigned(List.of(P0));
    intake.put(records(0, 10));
    intake.revoked(List.of(P0));
    ControlEvent.BatchChunk announced = channel.batches().get(0);

    CompletableFuture<Void> opening =
        CompletableFuture.runAsync(() -> intake.assigned(List.of(P0, p1)));
    await().atMost(Duration.ofSeconds(10)).until(() -> participant.holds(P0));
    assertThat(opening).as("P1 is new: its own batch in flight holds P0").isNotDone();

    format.watermarks.put(TABLE, Watermarks.of(Map.of(P0, 10L)));
    participant.onTableCommitted(
        new ControlEvent.TableCommitted(
            "conn", 1, TABLE, Map.of(announced.batchId(), BatchPlan.Decision.APPLY)));
    opening.join();
    intake.put(records(0, 12)); // from Connect's committed offset, 0
    participant.onStartCommit(2);
    assertThat(channel.batches().get(channel.batches().size() - 1).ranges())
        .containsEntry(P0, new OffsetRange(10, 12));
    assertThat(format.writersOpened).as("a writer made after the decision").hasValue(2);
  }

  @Test
  void aPartitionBackFromAnotherTaskContinuesWhereTheTableDoesNotWhereThisTaskLeftIt() {
    TopicPartition p1 = new TopicPartition("t", 1);
    RecordIntake intake = intake(true);
    intake.assigned(List.of(P0));
    intake.put(records(0, 10));
    coordinatorDecides(BatchPlan.Decision.APPLY);
    intake.revoked(List.of(P0));
    intake.assigned(List.of(p1)); // P0 goes to another task
    intake.revoked(List.of(p1));

    format.watermarks.put(TABLE, Watermarks.of(Map.of(P0, 20L))); // the other task's commits
    intake.assigned(List.of(P0));
    assertThat(participant.holds(P0)).as("nothing in flight for it").isFalse();
    intake.put(records(20, 22));
    participant.onStartCommit(2);
    assertThat(channel.batches().get(channel.batches().size() - 1).ranges())
        .containsEntry(P0, new OffsetRange(20, 22));
  }

  private static ControlEvent.BatchChunk chunkOfAnotherTask(
      String batchId, TopicPartition tp, long from, long to) {
    return new ControlEvent.BatchChunk(
        "conn",
        1,
        1,
        batchId,
        TABLE,
        Map.of(tp, new OffsetRange(from, to)),
        0,
        1,
        1,
        to - from,
        100,
        0,
        1,
        new byte[] {1},
        TransactionCounts.NONE);
  }

  @Test
  void withADeadLetterTableABadRecordLandsThereOnceAndARereadSkipsIt() {
    TableId deadLetters = new TableId("c", List.of("errors"), "dead_letters");
    DeadLetterMetrics dlMetrics = new DeadLetterMetrics(PluginGauges.none());
    format.closing.countDown();
    TaskMetrics metrics =
        new TaskMetrics(
            PluginGauges.none(), () -> 0, participant::rewoundOffsets, () -> 0, () -> 0);
    RecordIntake intake =
        new RecordIntake(
            "conn-0",
            participant,
            new TableRouter(List.of(ROUTE)),
            new BadRecordHandler("conn", 0, true, null, () -> 0L),
            new DeadLetters(
                "conn",
                0,
                participant,
                new TableRouter.Destination(deadLetters, ROUTE),
                new DeadLetterRows("conn", 0, () -> 0L),
                dlMetrics),
            metrics,
            seeker,
            200,
            true,
            null);
    TopicPartition other = new TopicPartition("other", 0);
    intake.assigned(List.of(P0, other));
    intake.put(
        List.of(
            new SinkRecord("t", 0, null, null, null, "v0", 0),
            new SinkRecord("other", 0, null, null, null, "stray", 0),
            new SinkRecord("t", 0, null, null, null, "v1", 1)));
    participant.onStartCommit(1);
    assertThat(channel.batches())
        .as("the dead-letter batch goes first in the answer")
        .extracting(b -> b.ranges())
        .containsExactly(Map.of(other, new OffsetRange(0, 1)), Map.of(P0, new OffsetRange(0, 2)));
    assertThat(dlMetrics.count(null, "route")).isEqualTo(1);

    // committed; the task starts over (a restart) and reads the stray record again
    format.watermarks.put(deadLetters, Watermarks.of(Map.of(other, 1L)));
    format.watermarks.put(TABLE, Watermarks.of(Map.of(P0, 2L)));
    coordinatorDecides(BatchPlan.Decision.APPLY);
    participant.reset(Map.of());
    intake.put(List.of(new SinkRecord("other", 0, null, null, null, "stray", 0)));
    int before = channel.batches().size();
    participant.onStartCommit(2);
    assertThat(channel.batches()).as("the table has it: nothing new").hasSize(before);
    assertThat(dlMetrics.count(null, "route")).isEqualTo(1);
  }

  @Test
  void aRecordNoRouteTakesFailsTheTaskWithoutADeadLetterQueue() {
    RecordIntake intake = intake(true);
    intake.assigned(List.of(P0));
    SinkRecord stray = new SinkRecord("other", 0, null, null, null, "v", 0);
    assertThatThrownBy(() -> intake.put(List.of(stray)))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("conn")
        .hasMessageContaining("other");
  }
}
