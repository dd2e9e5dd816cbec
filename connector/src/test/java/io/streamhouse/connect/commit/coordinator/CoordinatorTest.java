package io.streamhouse.connect.commit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.commit.wire.ChunkAssembler;
import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.CompactionResult;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.TransactionCounts;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableFormat;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.testing.MovableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.LongFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's rounds against an in-memory channel, a recording table format and a clock the
 * test moves.
 */
class CoordinatorTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TopicPartition P1 = new TopicPartition("t", 1);
  private static final TableId TABLE = new TableId("c", List.of("ns"), "t");

  private final MovableClock clock = new MovableClock();
  private final FakeChannel channel = new FakeChannel();
  private final RecordingFormat format = new RecordingFormat();
  private final Coordinator coordinator =
      new Coordinator(
          "conn",
          Map.of("c", format),
          channel,
          () -> Set.of(P0, P1),
          1_000,
          10_000,
          2,
          clock,
          FaultInjection.parse(""),
          CommitObserver.NONE,
          List::of);

  @Test
  void aRoundStartsAfterTheIntervalAndCommitsAsSoonAsEveryPartitionReported() {
    coordinator.tick();
    assertThat(channel.sent).isEmpty();
    clock.advance(1_000);
    coordinator.tick();
    long commitId = startCommits().get(0).commitId();

    channel.deliver(batch(commitId, 0, "b0", P0, 0, 10));
    channel.deliver(new ControlEvent.TaskDone("conn", commitId, 0, List.of(P0), List.of()));
    coordinator.tick();
    assertThat(format.commits).isEmpty();
    channel.deliver(new ControlEvent.TaskDone("conn", commitId, 1, List.of(P1), List.of()));
    coordinator.tick();

    assertThat(format.commits).containsExactly("commit " + commitId + " [b0] full=true");
    assertThat(channel.sent)
        .filteredOn(e -> e instanceof ControlEvent.TableCommitted)
        .singleElement()
        .satisfies(
            e ->
                assertThat(((ControlEvent.TableCommitted) e).decisions())
                    .containsEntry("b0", BatchPlan.Decision.APPLY));
  }

  /**
   * Between rounds the coordinator waits for control events no longer than until the next round is
   * due: each round starts on time, one interval after the last one started, and the rounds do not
   * drift by a wait that ended past the due time (here 30 ms out of step with the 100 ms waits).
   */
  @Test
  void roundsStartOnTimeWhileTheChannelWaitsForEvents() {
    long created = clock.millis();
    channel.waitsOn = clock;
    clock.advance(30);
    while (startCommits().isEmpty()) {
      coordinator.tick();
    }
    long first = startCommits().get(0).commitId();
    assertThat(first).as("the round's id is its start").isEqualTo(created + 1_000);
    channel.deliver(batch(first, 0, "b0", P0, 0, 10));
    channel.deliver(new ControlEvent.TaskDone("conn", first, 0, List.of(P0, P1), List.of()));
    coordinator.tick();
    assertThat(format.commits).hasSize(1);
    while (startCommits().size() < 2) {
      coordinator.tick();
    }
    assertThat(startCommits().get(1).commitId()).isEqualTo(first + 1_000);
  }

  @Test
  void aCoordinatorThatHearsALaterOneCommitsNothingUntilTheLaterOneFellSilent() {
    clock.advance(1_000);
    coordinator.tick();
    long commitId = startCommits().get(0).commitId();
    channel.deliver(batch(commitId, 0, "b0", P0, 0, 10));
    // A later coordinator of the connector (task 0 started again elsewhere) sends its request
    // before this round's last report: this one, a zombie now, drops its round.
    channel.deliver(new ControlEvent.StartCommit("conn", commitId + 5, Long.MAX_VALUE - 1));
    channel.deliver(new ControlEvent.TaskDone("conn", commitId, 0, List.of(P0, P1), List.of()));
    coordinator.tick();
    assertThat(coordinator.standingDown()).isTrue();
    for (int i = 0; i < 10; i++) { // the later one is heard every second
      clock.advance(1_000);
      channel.deliver(new ControlEvent.StartCommit("conn", commitId + 6 + i, Long.MAX_VALUE - 1));
      coordinator.tick();
    }
    assertThat(format.commits).as("nothing committed beside the later coordinator").isEmpty();
    assertThat(startCommits()).as("no round started while it stands down").hasSize(1);

    // The later coordinator falls silent for the stand-down time: this one commits again.
    clock.advance(Coordinator.standDownMs(1_000, 10_000));
    long next = round(List.of(offer(0, "b1", P0, 0, 10)), 0, 1);
    assertThat(coordinator.standingDown()).isFalse();
    assertThat(format.commits).containsExactly("commit " + next + " [b1] full=true");
  }

  @Test
  void theDeadLetterTableIsCommittedFirstAndTheOthersOnlyOnceItTookEveryBatch() {
    TableId deadLetters = new TableId("c", List.of("errors"), "dead_letters");
    coordinator.commitFirst(deadLetters);
    clock.advance(1_000);
    coordinator.tick();
    long first = startCommits().get(0).commitId();
    channel.deliver(batch(first, 0, "b0", P0, 0, 10));
    channel.deliver(batch(deadLetters, first, 0, "d0", P0, 4, 5));
    channel.deliver(new ControlEvent.TaskDone("conn", first, 0, List.of(P0, P1), List.of()));
    format.failNext = true; // the dead-letter table's commit fails
    coordinator.tick();
    assertThat(format.commits)
        .as("the other table waits: its watermarks would pass a record the dead-letter table lacks")
        .containsExactly("failed " + first);
    assertThat(channel.sent).noneMatch(e -> e instanceof ControlEvent.TableCommitted);

    clock.advance(1_000);
    coordinator.tick();
    long second = startCommits().get(1).commitId();
    channel.deliver(batch(second, 0, "b0", P0, 0, 10));
    channel.deliver(batch(deadLetters, second, 0, "d0", P0, 4, 5));
    channel.deliver(new ControlEvent.TaskDone("conn", second, 0, List.of(P0, P1), List.of()));
    coordinator.tick();
    assertThat(format.commits)
        .containsExactly(
            "failed " + first,
            "commit " + second + " [d0] full=true",
            "commit " + second + " [b0] full=true");
    assertThat(channel.sent)
        .filteredOn(e -> e instanceof ControlEvent.TableCommitted)
        .extracting(e -> ((ControlEvent.TableCommitted) e).table())
        .containsExactly(deadLetters, TABLE);
  }

  @Test
  void aMissingPartitionIsAskedAgainEverySecondThenTheRoundCommitsWhatArrived() {
    clock.advance(1_000);
    coordinator.tick();
    long commitId = startCommits().get(0).commitId();
    channel.deliver(batch(commitId, 0, "b0", P0, 0, 10));
    channel.deliver(new ControlEvent.TaskDone("conn", commitId, 0, List.of(P0), List.of()));
    for (int second = 1; second <= 9; second++) {
      clock.advance(1_000);
      coordinator.tick();
    }
    assertThat(startCommits())
        .hasSize(10)
        .extracting(ControlEvent::commitId)
        .containsOnly(commitId);
    assertThat(format.commits).isEmpty();
    clock.advance(1_000);
    coordinator.tick();
    assertThat(format.commits).containsExactly("commit " + commitId + " [b0] full=false");
  }

  @Test
  void aBatchSplitIntoChunksIsReassembled() {
    clock.advance(1_000);
    coordinator.tick();
    long commitId = startCommits().get(0).commitId();
    byte[] payload = new byte[ControlChannel.CHUNK_BYTES * 2 + 7];
    payload[payload.length - 1] = 42;
    OfferedBatch big =
        new OfferedBatch(
            "big",
            0,
            Map.of(P0, new OffsetRange(0, 5)),
            new PreparedFiles(1, payload, 3, 5, payload.length),
            0);
    List<ControlEvent.BatchChunk> chunks = ChunkAssembler.split("conn", commitId, 0, TABLE, big);
    assertThat(chunks).hasSize(3);
    chunks.forEach(channel::deliver);
    channel.deliver(new ControlEvent.TaskDone("conn", commitId, 0, List.of(P0, P1), List.of()));
    coordinator.tick();
    assertThat(format.lastBatches)
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.files().payload()).hasSize(payload.length).endsWith((byte) 42);
              assertThat(b.files().files()).isEqualTo(3);
            });
  }

  @Test
  void aFailedTableCommitCommitsTheBatchOfferedAgainInTheNextRound() {
    format.failNext = true;
    clock.advance(1_000);
    coordinator.tick();
    long first = startCommits().get(0).commitId();
    channel.deliver(batch(first, 0, "b0", P0, 0, 10));
    channel.deliver(new ControlEvent.TaskDone("conn", first, 0, List.of(P0, P1), List.of()));
    coordinator.tick();
    assertThat(format.commits).containsExactly("failed " + first);

    clock.advance(1_000);
    coordinator.tick();
    long second = startCommits().get(1).commitId();
    assertThat(second).isGreaterThan(first);
    channel.deliver(
        batch(second, 0, "b0", P0, 0, 10)); // the task offers every undecided batch again
    channel.deliver(new ControlEvent.TaskDone("conn", second, 0, List.of(P0, P1), List.of()));
    coordinator.tick();
    assertThat(format.commits)
        .containsExactly("failed " + first, "commit " + second + " [b0] full=true");
  }

  @Test
  void batchesOfferedForAnotherRoundAreIgnoredSoThatAReplayAddsNothing() {
    clock.advance(1_000);
    coordinator.tick();
    long first = startCommits().get(0).commitId();
    ControlEvent.BatchChunk offered = batch(first, 0, "b0", P0, 0, 10);
    channel.deliver(offered);
    channel.deliver(new ControlEvent.TaskDone("conn", first, 0, List.of(P0, P1), List.of()));
    coordinator.tick();
    assertThat(format.commits).containsExactly("commit " + first + " [b0] full=true");

    channel.deliver(offered); // between rounds
    coordinator.tick();
    clock.advance(1_000);
    coordinator.tick();
    long second = startCommits().get(1).commitId();
    channel.deliver(offered); // during the next round
    channel.deliver(batch(second - 1, 0, "b1", P0, 10, 20)); // a round that never was
    // the old round's report
    channel.deliver(new ControlEvent.TaskDone("conn", first, 0, List.of(P0, P1), List.of()));
    coordinator.tick();
    assertThat(format.commits).hasSize(1);
    channel.deliver(new ControlEvent.TaskDone("conn", second, 0, List.of(P0, P1), List.of()));
    coordinator.tick();
    assertThat(format.commits).hasSize(1); // a round with nothing offered commits nothing
  }

  @Test
  void rejectedBatchesAreDiscardedButRefusedOnesAreLeftAlone() {
    format.refuse = "b1";
    clock.advance(1_000);
    coordinator.tick();
    long commitId = startCommits().get(0).commitId();
    channel.deliver(batch(commitId, 0, "b0", P0, 0, 10));
    channel.deliver(batch(commitId, 1, "b1", P1, 0, 10));
    channel.deliver(new ControlEvent.TaskDone("conn", commitId, 0, List.of(P0, P1), List.of()));
    coordinator.tick();
    assertThat(channel.sent)
        .filteredOn(e -> e instanceof ControlEvent.TableCommitted)
        .singleElement()
        .satisfies(
            e ->
                assertThat(((ControlEvent.TableCommitted) e).decisions())
                    .containsEntry("b0", BatchPlan.Decision.REJECT)
                    .containsEntry("b1", BatchPlan.Decision.REJECT));
    assertThat(format.discarded).hasSize(1); // b0's files; b1's may not be the connector's
  }

  @Test
  void everyTableWithBatchesIsCommittedAndReported() {
    TableId other = new TableId("c", List.of("ns"), "u");
    clock.advance(1_000);
    coordinator.tick();
    long commitId = startCommits().get(0).commitId();
    channel.deliver(batch(commitId, 0, "b0", P0, 0, 10));
    channel.deliver(
        new ControlEvent.BatchChunk(
            "conn",
            commitId,
            1,
            "b1",
            other,
            Map.of(P1, new OffsetRange(0, 4)),
            0,
            1,
            1,
            4,
            100,
            0,
            1,
            new byte[] {9},
            TransactionCounts.NONE));
    channel.deliver(new ControlEvent.TaskDone("conn", commitId, 0, List.of(P0, P1), List.of()));
    coordinator.tick();
    assertThat(format.commits)
        .containsExactlyInAnyOrder(
            "commit " + commitId + " [b0] full=true", "commit " + commitId + " [b1] full=true");
    assertThat(channel.sent)
        .filteredOn(e -> e instanceof ControlEvent.TableCommitted)
        .extracting(e -> ((ControlEvent.TableCommitted) e).table())
        .containsExactlyInAnyOrder(TABLE, other);
  }

  @Test
  void aTaskHandingOverGetsARoundAtOnceThatCommitsWithoutWaitingForTheOthers() {
    coordinator.tick();
    channel.deliver(new ControlEvent.RoundRequest("conn", 0, 1));
    coordinator.tick(); // takes the request
    coordinator.tick(); // starts the round, long before the interval
    long commitId = startCommits().get(0).commitId();
    channel.deliver(batch(commitId, 1, "b1", P1, 0, 10));
    channel.deliver(new ControlEvent.TaskDone("conn", commitId, 1, List.of(P1), List.of()));
    coordinator.tick();
    assertThat(format.commits)
        .as("P0 never reported, but the task handing over answered")
        .containsExactly("commit " + commitId + " [b1] full=false");
  }

  @Test
  void aRequestDuringARoundAsksAgainAndTheRoundCommitsOnceTheRequesterAnsweredAfterIt() {
    clock.advance(1_000);
    coordinator.tick();
    long commitId = startCommits().get(0).commitId();
    channel.deliver(
        new ControlEvent.TaskDone(
            "conn", commitId, 1, List.of(P1), List.of())); // before its revocation
    channel.deliver(new ControlEvent.RoundRequest("conn", commitId, 1));
    coordinator.tick();
    assertThat(startCommits()).as("asked again at once").hasSize(2);
    assertThat(format.commits).isEmpty();
    channel.deliver(batch(commitId, 1, "b1", P1, 0, 10));
    channel.deliver(new ControlEvent.TaskDone("conn", commitId, 1, List.of(P1), List.of()));
    coordinator.tick();
    assertThat(format.commits).containsExactly("commit " + commitId + " [b1] full=false");
  }

  @Test
  void requestedRoundsStartAtMostOncePerSecondWhateverTheRequests() {
    coordinator.tick();
    int rounds = 0;
    for (int i = 0; i < 50; i++) {
      channel.deliver(new ControlEvent.RoundRequest("conn", 0, 1)); // a replay flood
      coordinator.tick();
      coordinator.tick();
      long started = startCommits().stream().map(ControlEvent::commitId).distinct().count();
      if (started > rounds) {
        rounds = (int) started;
        long commitId = startCommits().get(startCommits().size() - 1).commitId();
        channel.deliver(new ControlEvent.TaskDone("conn", commitId, 1, List.of(P0, P1), List.of()));
        coordinator.tick();
      }
      clock.advance(100);
    }
    assertThat(rounds).as("5 s of requests every 100 ms").isBetween(4, 6);
  }

  @Test
  void compactionJobsGoToTheTasksThatAnsweredAndNoBucketHasTwoJobsOutUntilItsResultIsDecided() {
    format.jobs =
        java.util.stream.IntStream.range(0, 20)
            .mapToObj(i -> new CompactionJob("bucket " + i, new byte[] {(byte) i}))
            .toList();
    long first = round(List.of(offer(0, "b0", P0, 0, 10)), 0, 1);
    List<ControlEvent.CompactRequest> handedOut = compactRequests();
    assertThat(handedOut)
        .extracting(ControlEvent.CompactRequest::taskId)
        .as("spread over both tasks")
        .containsExactlyInAnyOrder(0, 1);
    assertThat(handedOut).flatExtracting(ControlEvent.CompactRequest::jobs).hasSize(20);
    assertThat(handedOut).allSatisfy(r -> assertThat(r.commitId()).isEqualTo(first));

    // A rebalance: only task 2 answers now. The buckets still out are not handed out again.
    round(List.of(offer(2, "b1", P0, 10, 20)), 2);
    assertThat(compactRequests()).hasSize(2);

    // Task 0's result is decided: its buckets may go out again, now to task 2.
    ControlEvent.CompactRequest done =
        handedOut.stream().filter(r -> r.taskId() == 0).findFirst().orElseThrow();
    long third = round(List.of(offer(2, "b2", P0, 20, 30), compactionResult(0, done.jobId())), 2);
    assertThat(format.commits)
        .as("the result is committed as it arrives, by itself, as a compaction result")
        .contains("compactions " + third + " [" + done.jobId() + "]")
        .contains("commit " + third + " [b2] full=true");
    // A replay of the decided result, and a result from a task its job did not go to, are
    // passed over.
    ControlEvent.CompactRequest otherTask =
        handedOut.stream().filter(r -> r.taskId() == 1).findFirst().orElseThrow();
    round(
        List.of(
            offer(2, "b3", P0, 30, 40),
            compactionResult(0, done.jobId()),
            compactionResult(2, otherTask.jobId())),
        2);
    assertThat(format.commits).filteredOn(c -> c.startsWith("compactions")).hasSize(1);
    List<ControlEvent.CompactRequest> again =
        compactRequests().subList(2, compactRequests().size());
    assertThat(again)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.taskId()).isEqualTo(2);
              assertThat(r.commitId()).isEqualTo(third);
              assertThat(r.jobs())
                  .extracting(CompactionJob::key)
                  .containsExactlyInAnyOrderElementsOf(
                      done.jobs().stream().map(CompactionJob::key).toList());
            });
  }

  @Test
  void aNewCoordinatorHandsOutTheCompactionsTheConfiguredTablesStillNeedOnce() {
    format.pending = List.of(new CompactionJob("bucket 0", new byte[] {0}));
    Coordinator fresh = freshCoordinator();
    roundsOf(fresh, 3, 1_000);
    assertThat(compactRequests())
        .as("nothing was committed, yet the table's buckets get their job, once")
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.taskId()).isEqualTo(1);
              assertThat(r.table()).isEqualTo(TABLE);
              assertThat(r.jobs()).isEqualTo(format.pending);
            });
    fresh.close();
  }

  @Test
  void aQuietTableIsLookedAtAgainOnlyWhenItsLatestSnapshotChanged() {
    Coordinator fresh = freshCoordinator();
    roundsOf(fresh, 1, 1_000);
    assertThat(format.pendingLooks).as("the first round looks at the configured table").isOne();
    assertThat(compactRequests()).isEmpty();

    // A predecessor, frozen mid-round, commits after this coordinator looked: level-0 files that
    // no commit of this coordinator calls a job for.
    format.latestSnapshot = 2;
    format.pending = List.of(new CompactionJob("bucket 0", new byte[] {0}));
    roundsOf(fresh, 30, 1_000);
    assertThat(compactRequests()).as("not before the table was quiet for a minute").isEmpty();
    roundsOf(fresh, 31, 1_000);
    assertThat(compactRequests())
        .as("once quiet, the changed table gets its job")
        .singleElement()
        .satisfies(r -> assertThat(r.jobs()).isEqualTo(format.pending));
    ControlEvent.CompactRequest job = compactRequests().get(0);
    channel.deliver(compactionResult(1, job.jobId()).apply(job.commitId()));
    format.latestSnapshot = 3; // the compaction's snapshot
    format.pending = List.of();
    roundsOf(fresh, 70, 1_000);
    int looks = format.pendingLooks;
    roundsOf(fresh, 300, 1_000);
    assertThat(format.pendingLooks)
        .as("a quiet table whose latest snapshot stays is not scanned again")
        .isEqualTo(looks);
    assertThat(compactRequests()).hasSize(1);
    fresh.close();
  }

  @Test
  void aTableWhoseCompactionResultWasRejectedIsLookedAtAgainAfterTheJobTimeout() {
    format.pending = List.of(new CompactionJob("bucket 0", new byte[] {0}));
    format.rejectCompactions = true;
    Coordinator fresh = freshCoordinator();
    roundsOf(fresh, 1, 1_000);
    ControlEvent.CompactRequest job = compactRequests().get(0);
    channel.deliver(compactionResult(1, job.jobId()).apply(job.commitId()));
    roundsOf(fresh, 1, 1_000); // the result arrives and is rejected
    assertThat(format.commits).singleElement().asString().startsWith("compactions");
    format.rejectCompactions = false;
    roundsOf(fresh, 12, 1_000);
    assertThat(compactRequests())
        .as("the rejected job's bucket goes out again without a write to it")
        .hasSize(2)
        .last()
        .satisfies(r -> assertThat(r.jobs()).isEqualTo(format.pending));
    fresh.close();
  }

  /** A coordinator of the table {@code TABLE}, with a commit every second. */
  private Coordinator freshCoordinator() {
    return new Coordinator(
        "conn",
        Map.of("c", format),
        channel,
        () -> Set.of(P0, P1),
        1_000,
        10_000,
        2,
        clock,
        FaultInjection.parse(""),
        CommitObserver.NONE,
        () -> List.of(TABLE));
  }

  /** {@code rounds} rounds of {@code coordinator}, {@code everyMs} apart, answered by task 1. */
  private void roundsOf(Coordinator coordinator, int rounds, long everyMs) {
    for (int round = 0; round < rounds; round++) {
      clock.advance(everyMs);
      coordinator.tick();
      List<ControlEvent.StartCommit> starts = startCommits();
      channel.deliver(
          new ControlEvent.TaskDone(
              "conn", starts.get(starts.size() - 1).commitId(), 1, List.of(P0, P1), List.of()));
      coordinator.tick();
    }
  }

  /** Runs one round: the batches are offered, then the given tasks report every partition. */
  private long round(List<LongFunction<ControlEvent>> batches, int... tasks) {
    clock.advance(1_000);
    coordinator.tick();
    List<ControlEvent.StartCommit> starts = startCommits();
    long commitId = starts.get(starts.size() - 1).commitId();
    batches.forEach(b -> channel.deliver(b.apply(commitId)));
    for (int task : tasks) {
      channel.deliver(
          new ControlEvent.TaskDone("conn", commitId, task, List.of(P0, P1), List.of()));
    }
    coordinator.tick();
    return commitId;
  }

  private static LongFunction<ControlEvent> offer(
      int task, String id, TopicPartition tp, long from, long to) {
    return commitId -> batch(commitId, task, id, tp, from, to);
  }

  private static LongFunction<ControlEvent> compactionResult(int task, String jobId) {
    return commitId ->
        new ControlEvent.CompactionResultChunk(
            "conn", commitId, task, jobId, TABLE, 1, 1, 0, 10, 0, 1, new byte[] {7});
  }

  private List<ControlEvent.CompactRequest> compactRequests() {
    return channel.sent.stream()
        .filter(e -> e instanceof ControlEvent.CompactRequest)
        .map(e -> (ControlEvent.CompactRequest) e)
        .toList();
  }

  private List<ControlEvent.StartCommit> startCommits() {
    return channel.sent.stream()
        .filter(e -> e instanceof ControlEvent.StartCommit)
        .map(e -> (ControlEvent.StartCommit) e)
        .toList();
  }

  private static ControlEvent.BatchChunk batch(
      long commitId, int task, String id, TopicPartition tp, long from, long to) {
    return batch(TABLE, commitId, task, id, tp, from, to);
  }

  private static ControlEvent.BatchChunk batch(
      TableId table, long commitId, int task, String id, TopicPartition tp, long from, long to) {
    return new ControlEvent.BatchChunk(
        "conn",
        commitId,
        task,
        id,
        table,
        Map.of(tp, new OffsetRange(from, to)),
        0,
        1,
        1,
        to - from,
        100,
        0,
        1,
        new byte[] {1, 2, 3},
        TransactionCounts.NONE);
  }

  /** Events the test delivers come out of poll; what the coordinator sends is recorded. */
  private static final class FakeChannel implements ControlChannel {
    final List<ControlEvent> sent = new ArrayList<>();
    final List<ControlEvent> inbox = new ArrayList<>();

    /** When set, a poll with nothing to deliver waits its whole timeout on this clock. */
    MovableClock waitsOn;

    void deliver(ControlEvent event) {
      inbox.add(event);
    }

    @Override
    public void send(List<? extends ControlEvent> events) {
      sent.addAll(events);
    }

    @Override
    public List<ControlEvent> poll(Duration timeout) {
      if (inbox.isEmpty() && waitsOn != null) {
        waitsOn.advance(timeout.toMillis());
      }
      List<ControlEvent> out = new ArrayList<>(inbox);
      inbox.clear();
      return out;
    }

    @Override
    public void wakeup() {}

    @Override
    public void close() {}
  }

  /** Applies every batch; records each commit; can fail once. */
  private static final class RecordingFormat implements TableFormat {
    final List<String> commits = java.util.Collections.synchronizedList(new ArrayList<>());
    List<OfferedBatch> lastBatches = List.of();
    final List<PreparedFiles> discarded = new ArrayList<>();
    boolean failNext;

    /** A batch id to refuse (and reject every other): a format whose file checks failed for it. */
    String refuse;

    /** The maintenance every commit calls for. */
    List<CompactionJob> jobs = List.of();

    /** The maintenance the tables need as they are. */
    List<CompactionJob> pending = List.of();

    /** How often {@link #pendingCompactions} was asked. */
    int pendingLooks;

    /** The tables' latest snapshot id. */
    long latestSnapshot = 1;

    /** Whether compaction results are rejected (a conflict with another compaction). */
    boolean rejectCompactions;

    @Override
    public List<CompactionJob> pendingCompactions(TableId table) {
      pendingLooks++;
      return pending;
    }

    @Override
    public OptionalLong latestSnapshotId(TableId table) {
      return OptionalLong.of(latestSnapshot);
    }

    @Override
    public Map<String, BatchPlan.Decision> commitCompactions(
        TableId table, long commitId, List<CompactionResult> results) {
      Map<String, BatchPlan.Decision> decisions = new LinkedHashMap<>();
      results.forEach(
          r ->
              decisions.put(
                  r.jobId(),
                  rejectCompactions ? BatchPlan.Decision.REJECT : BatchPlan.Decision.APPLY));
      commits.add(
          "compactions " + commitId + " " + results.stream().map(CompactionResult::jobId).toList());
      return decisions;
    }

    @Override
    public CommitOutcome commit(
        TableId table, long commitId, List<OfferedBatch> batches, boolean fullRound) {
      if (failNext) {
        failNext = false;
        commits.add("failed " + commitId);
        throw new IllegalStateException("catalog unavailable");
      }
      lastBatches = batches;
      Map<String, BatchPlan.Decision> decisions = new LinkedHashMap<>();
      if (refuse != null) {
        batches.forEach(b -> decisions.put(b.batchId(), BatchPlan.Decision.REJECT));
        return new CommitOutcome(
            decisions, Watermarks.EMPTY, OptionalLong.empty(), 0, 0, Set.of(refuse));
      }
      batches.forEach(b -> decisions.put(b.batchId(), BatchPlan.Decision.APPLY));
      commits.add(
          "commit "
              + commitId
              + " "
              + batches.stream().map(OfferedBatch::batchId).toList()
              + " full="
              + fullRound);
      return new CommitOutcome(
          decisions, Watermarks.EMPTY, OptionalLong.of(1), 0, 0, Set.of(), jobs);
    }

    @Override
    public java.util.Optional<TableWriter> openWriter(
        TableId table, RouteSettings route, SinkRecord sample, FileBudget budget) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void evolve(
        TableId table,
        io.streamhouse.connect.schema.FieldType.Struct row,
        io.streamhouse.connect.schema.EvolutionMode mode) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Watermarks watermarks(TableId table) {
      return Watermarks.EMPTY;
    }

    @Override
    public void discard(TableId table, List<PreparedFiles> files) {
      discarded.addAll(files);
    }

    @Override
    public void close() {}
  }
}
