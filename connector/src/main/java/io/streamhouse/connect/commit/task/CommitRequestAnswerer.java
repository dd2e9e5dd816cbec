package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.PreparedFiles;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Answers the coordinator's commit requests ({@code StartCommit}) for one task: offers the batches
 * still undecided and the new batch, taken out of the writers at the request or cut ahead of it
 * when the request is due (prepare ahead, {@link AnswerSchedule}, {@link PreparedAhead}), then
 * reports the task done. It tells {@link HandInWatch} that a request came and was answered: whether
 * a stopping task may leave ({@link HandOver#leave}), and whether a hand-in is left to the
 * coordinator. The control thread calls it.
 */
final class CommitRequestAnswerer {
  private final String connector;
  private final int taskId;
  private final ControlChannel channel;
  private final FaultInjection faults;
  private final TaskState state;
  private final BatchCloser closer;
  private final HandOverWait handOverWait;
  private final AnswerEvents answerEvents;
  private final HandInWatch handIn;
  private final CommitAnswers answers;
  private final AnswerSchedule schedule;
  private final PreparedAhead ahead;
  private final TransactionExchange transactions;

  /** Records of the cut made ahead, for the schedule once its flush is known (control thread). */
  private long aheadRecords;

  /**
   * {@code commitIntervalMs}: the coordinator's {@code commit.interval.ms}, which tells when the
   * next request is due and the batch is cut ahead of it (0 or less: never ahead, the request takes
   * the files out).
   */
  CommitRequestAnswerer(
      String connector,
      int taskId,
      ControlChannel channel,
      FaultInjection faults,
      TaskState state,
      BatchCloser closer,
      HandOverWait handOverWait,
      AnswerEvents answerEvents,
      HandInWatch handIn,
      TransactionExchange transactions,
      long commitIntervalMs,
      long commitTimeoutMs) {
    this.connector = connector;
    this.taskId = taskId;
    this.channel = channel;
    this.faults = faults;
    this.state = state;
    this.closer = closer;
    this.handOverWait = handOverWait;
    this.answerEvents = answerEvents;
    this.handIn = handIn;
    this.transactions = transactions;
    this.answers = new CommitAnswers(connector + "-" + taskId, commitTimeoutMs);
    this.schedule = new AnswerSchedule(commitIntervalMs);
    schedule.started(TimeUnit.NANOSECONDS.toMillis(System.nanoTime()));
    this.ahead = new PreparedAhead(connector + "-" + taskId);
  }

  /**
   * StartCommit: offers at once every batch that is closed and undecided (one closed after an
   * earlier round ended goes into this one), then the new batch: the one cut ahead for this request
   * ({@link #cutAheadIfDue}) once its files closed, else the files taken out of every open table
   * now and closed. Then it reports done with the current assignment. A repeated request for the
   * commit answered last (the coordinator repeats it while partitions are missing, for example
   * after a rebalance) offers the undecided batches and reports again, without preparing anything
   * new. Until the files are offered their offsets count as in flight; a reset in between
   * (rebalance, rejection, schema change) makes them void, and they are deleted unoffered.
   */
  void onStartCommit(long commitId) {
    long requestedAt = System.nanoTime();
    handIn.requested();
    boolean unscheduled = schedule.unscheduled(TimeUnit.NANOSECONDS.toMillis(requestedAt));
    // A hand-over's round offers a batch cut ahead only once its files closed: it must not wait.
    Optional<RoundAnswer> answering =
        state.round(
            commitId,
            !unscheduled,
            !unscheduled || !ahead.busy(),
            () -> faults.at(FaultInjection.Point.BEFORE_PREPARE));
    if (answering.isEmpty()) {
      return;
    }
    RoundAnswer round = answering.get();
    List<ControlEvent> ready = answerEvents.of(commitId, round.offeredAgain());
    if (round.repeated()) {
      schedule.repeated();
      ready.add(taskDone(commitId));
      channel.send(ready);
      handIn.answered();
      return;
    }
    schedule.requested(TimeUnit.NANOSECONDS.toMillis(requestedAt), !unscheduled);
    handOverWait.requested(commitId, requestedAt);
    if (!ready.isEmpty()) {
      channel.send(ready);
    }
    long detachedAt = System.nanoTime();
    OfferedBatches offered;
    DetachedBatches detached = round.detached();
    long cutAgeMs = -1;
    long aheadFlushMs = -1;
    if (round.cutAhead()) {
      PreparedAhead.Prepared prepared = ahead.take();
      offered = prepared.offered();
      detached = prepared.detached();
      cutAgeMs = TimeUnit.NANOSECONDS.toMillis(requestedAt - prepared.cutAtNanos());
      aheadFlushMs = prepared.flushMs();
      schedule.flushed(aheadFlushMs, fileCount(offered), aheadRecords);
    } else if (unscheduled) {
      offered = closeAndOffer(round.detached()); // nothing taken out: what was written stays
    } else {
      long records = round.detached().records(); // taken out of the writers with the round
      faults.at(FaultInjection.Point.FLUSH);
      offered = closeAndOffer(round.detached());
      schedule.flushed(
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - detachedAt),
          fileCount(offered),
          records);
    }
    long closedAt = System.nanoTime();
    if (offered.failure() != null) {
      throw new IllegalStateException(
          "Connector "
              + connector
              + " task "
              + taskId
              + ": could not close the data files of tables "
              + tables(detached)
              + " for commit "
              + commitId
              + ": "
              + offered.failure(),
          offered.failure());
    }
    // The new batches, and any that became pending meanwhile (a hand-over, a schema change): a
    // round offers every batch that precedes one it offers.
    Set<String> offeredFirst = new HashSet<>();
    round.offeredAgain().forEach(p -> offeredFirst.add(p.batch().batchId()));
    List<ControlEvent> events = answerEvents.of(commitId, state.pendingBesides(offeredFirst));
    events.add(taskDone(commitId));
    channel.send(events);
    handIn.answered();
    answers.answered(
        commitId,
        requestedAt,
        detachedAt,
        closedAt,
        offered.batches().size(),
        fileCount(offered),
        offered.files().values().stream().mapToLong(PreparedFiles::bytes).sum(),
        offeredAgain(round, offered),
        cutAgeMs,
        aheadFlushMs,
        unscheduled && !round.cutAhead());
  }

  /**
   * Prepare ahead (docs/architecture.md): when the next commit request is due within the last
   * flush's duration and a margin ({@link AnswerSchedule}), cuts the batch now and closes its files
   * on the prepare thread, without the task state {@code put} owns; the request then answers with
   * it at once, or as soon as its files closed. The control thread calls it between its polls.
   */
  void cutAheadIfDue() {
    if (ahead.busy()
        || !schedule.due(
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime()), state.writtenSinceCut())) {
      return;
    }
    schedule.cutMade();
    cutAhead();
  }

  /** Milliseconds until {@link #cutAheadIfDue} has something to do; MAX_VALUE for never. */
  long untilCutAheadMs() {
    return schedule.untilCutMs(
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime()), state.writtenSinceCut());
  }

  /** Whether the files of a batch cut ahead are still closing (control thread). */
  boolean closingAhead() {
    return ahead.busy();
  }

  /** Cuts the next request's batch now; false when there was nothing to cut. */
  boolean cutAhead() {
    Optional<DetachedBatches> cut =
        state.cutAhead(() -> faults.at(FaultInjection.Point.BEFORE_PREPARE));
    if (cut.isEmpty()) {
      return false;
    }
    aheadRecords = cut.get().records();
    long cutAt = System.nanoTime();
    ahead.start(
        () -> {
          faults.at(FaultInjection.Point.FLUSH);
          OfferedBatches offered = closeAndOffer(cut.get());
          long flushMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAt);
          return new PreparedAhead.Prepared(cut.get(), offered, cutAt, flushMs);
        });
    return true;
  }

  /**
   * Control thread: a task asked the coordinator for a round for its hand-over. Another task's
   * request makes the next new request one this task answers without taking its writers' records
   * out ({@link AnswerSchedule#unscheduled}).
   */
  void onRoundRequest(ControlEvent.RoundRequest request) {
    if (request.taskId() != taskId) {
      schedule.handOverRequested();
    }
  }

  /** Milliseconds from the last commit request to this task's answer. */
  long lastAnswerMs() {
    return answers.lastAnswerMs();
  }

  /** Answers slower than {@code commit.timeout.ms}: their rounds were committed without them. */
  long lateAnswers() {
    return answers.lateAnswers();
  }

  private static long fileCount(OfferedBatches offered) {
    return offered.files().values().stream().mapToLong(PreparedFiles::files).sum();
  }

  /** The batches of earlier rounds offered again (a cut ahead that closed before is new). */
  private static int offeredAgain(RoundAnswer round, OfferedBatches offered) {
    Set<String> fresh = new HashSet<>();
    offered.batches().forEach(p -> fresh.add(p.batch().batchId()));
    return (int)
        round.offeredAgain().stream().filter(p -> !fresh.contains(p.batch().batchId())).count();
  }

  /** From taken-out files to offered batches: closed without the task state, offered owning it. */
  private OfferedBatches closeAndOffer(DetachedBatches detached) {
    return state.offer(
        detached, closer.close(detached.batches(), InFlightBatches.Preparing::files));
  }

  private static List<String> tables(DetachedBatches detached) {
    return detached.batches().stream().map(p -> p.table().toString()).distinct().toList();
  }

  private ControlEvent.TaskDone taskDone(long commitId) {
    return new ControlEvent.TaskDone(
        connector, commitId, taskId, List.copyOf(state.assignedPartitions()), transactions.held());
  }

  /** The task stops: a cut still closing is abandoned (its offsets are read again). */
  void close() {
    ahead.close();
  }
}
