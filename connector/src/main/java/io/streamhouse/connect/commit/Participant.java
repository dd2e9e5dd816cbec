package io.streamhouse.connect.commit;

import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.routing.TableRouter.Destination;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableFormat;
import io.streamhouse.connect.table.WriteAfter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task side of the commit protocol: writes records into per-table writers (skipping what a
 * table already has, invariant <em>skip-what-the-table-has</em> of docs/architecture.md), offers
 * batches when the coordinator asks, keeps them until the coordinator says what became of them,
 * hands them in when partitions leave, and knows, per topic-partition, the oldest offset not yet
 * durable in every table (invariant <em>durable-offsets</em>).
 *
 * <p>What the task's thread and its control thread share is in {@link TaskState}, under one lock
 * that each of its steps takes itself, so that both threads may call in any order. Files close
 * without it ({@link BatchCloser}): taking them out of the writers is quick, closing them is not,
 * and the task writes on meanwhile.
 */
public final class Participant {
  private static final Logger LOG = LoggerFactory.getLogger(Participant.class);

  private final String connector;
  private final int taskId;
  private final ControlChannel channel;
  private final FaultInjection faults;
  private final TaskState state;
  private final CommitAnswers answers;
  private final BatchCloser closer;
  private final OwnBatchCommitter ownCommitter;
  private final AnswerSchedule schedule;
  private final PreparedAhead ahead;
  private final HandOverWait handOverWait = new HandOverWait();
  private final AnswerEvents answerEvents;
  private final TakeOverGate gate;

  /**
   * When the last hand-in asked for a round (nanoTime, -1 when none waits), its batches, and when
   * the task commits them itself if no coordinator asked for a round since ({@link
   * #commitOwnIfDue}).
   */
  private volatile long handedInAt = -1;

  private volatile Set<String> handedIn = Set.of();
  private volatile long ownCommitAfterNanos;

  /** Whether a commit request (of the latest coordinator) arrived since the last hand-in. */
  private volatile boolean requestedSinceHandIn;

  /** Whether the task answered a commit request, offering every pending batch, since then. */
  private volatile boolean answeredSinceHandIn;

  private final Map<String, TableFormat> formats;

  /** Records written since the last cut (ahead or at a request): what the next flush holds. */
  private final AtomicLong writtenSinceCut = new AtomicLong();

  /** Records of the cut made ahead, for the schedule once its flush is known (control thread). */
  private long aheadRecords;

  /**
   * {@code commitIntervalMs}: the coordinator's {@code commit.interval.ms}, which tells when the
   * next request is due and the batch is cut ahead of it (0 or less: never ahead, the request takes
   * the files out).
   */
  public Participant(
      String connector,
      int taskId,
      Map<String, TableFormat> formats,
      ControlChannel channel,
      FileBudget budget,
      FaultInjection faults,
      long commitIntervalMs,
      long commitTimeoutMs,
      int closeParallelism) {
    this.connector = connector;
    this.taskId = taskId;
    this.formats = formats;
    this.channel = channel;
    this.faults = faults;
    this.state = new TaskState(connector, taskId, formats, budget);
    this.answers = new CommitAnswers(connector + "-" + taskId, commitTimeoutMs);
    this.closer = new BatchCloser(connector + "-" + taskId, closeParallelism);
    this.ownCommitter = new OwnBatchCommitter(connector, taskId, formats);
    this.schedule = new AnswerSchedule(commitIntervalMs);
    schedule.started(TimeUnit.NANOSECONDS.toMillis(System.nanoTime()));
    this.ahead = new PreparedAhead(connector + "-" + taskId);
    this.answerEvents = new AnswerEvents(connector, taskId);
    this.gate =
        new TakeOverGate(
            connector + "-" + taskId,
            channel.keepsOrder(),
            commitTimeoutMs,
            Math.max(commitIntervalMs, 0) + commitTimeoutMs,
            this::writeAfter);
  }

  /** Whether a next owner may read on after the handed-in batch {@code chunk} (all of it). */
  private Optional<WriteAfter> writeAfter(ControlEvent.BatchChunk chunk) {
    TableFormat format = formats.get(chunk.table().catalog());
    if (format == null) {
      return Optional.empty();
    }
    return format.writeAfter(
        chunk.table(),
        new PreparedFiles(
            chunk.payloadVersion(), chunk.data(), chunk.files(), chunk.records(), chunk.bytes()));
  }

  /**
   * Offers and commits {@code table} (the dead-letter table) first: see {@link AnswerEvents} and
   * {@link Coordinator#commitFirst}. Set before the first record.
   */
  public void commitFirst(TableId table) {
    answerEvents.commitFirst(table);
    ownCommitter.commitFirst(table);
  }

  /**
   * Writes {@code record} (of {@code tp}, its original topic-partition) to {@code to.table()},
   * unless that table already has it. Returns whether it was written.
   *
   * @throws RecordConversionException if the value does not fit the table
   */
  public boolean write(SinkRecord record, TopicPartition tp, Destination to)
      throws RecordConversionException {
    boolean written = state.write(record, tp, to, closer);
    if (written) {
      writtenSinceCut.incrementAndGet();
    }
    return written;
  }

  /**
   * A record of {@code tp} arrived that the task drops unwritten, since every table of its
   * partition holds it: as for a record written, a rewind of {@code tp} has taken effect.
   */
  public void arrived(TopicPartition tp) {
    state.arrived(tp);
  }

  /**
   * {@code record} went to the dead letters instead of {@code to.table()}: the table's range takes
   * it in, so that once the next batch commits, a re-read skips it instead of reporting it again.
   */
  public void skipped(SinkRecord record, TopicPartition tp, Destination to) {
    state.skipped(record, tp, to);
  }

  /**
   * Where all of {@code destinations} continue for {@code tp}: the lowest of their positions (after
   * what this task wrote, else after its batches, else the table's watermark). Empty if one of them
   * has none: a table that does not exist yet, or never had a record of {@code tp}. Right after an
   * assignment or a reset the task has written nothing of {@code tp}: every record below it is then
   * in every one of these tables.
   */
  public OptionalLong commonPosition(TopicPartition tp, List<Destination> destinations) {
    return state.commonPosition(tp, destinations);
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
  public void onStartCommit(long commitId) {
    long requestedAt = System.nanoTime();
    requestedSinceHandIn = true;
    boolean unscheduled = schedule.unscheduled(TimeUnit.NANOSECONDS.toMillis(requestedAt));
    // A hand-over's round offers a batch cut ahead only once its files closed: it must not wait.
    Optional<TaskState.Round> answering =
        state.round(
            commitId,
            !unscheduled,
            !unscheduled || !ahead.busy(),
            () -> faults.at(FaultInjection.Point.BEFORE_PREPARE));
    if (answering.isEmpty()) {
      return;
    }
    TaskState.Round round = answering.get();
    List<ControlEvent> ready = answerEvents.of(commitId, round.offeredAgain());
    if (round.repeated()) {
      schedule.repeated();
      ready.add(taskDone(commitId));
      channel.send(ready);
      answered();
      return;
    }
    schedule.requested(TimeUnit.NANOSECONDS.toMillis(requestedAt), !unscheduled);
    handOverWait.requested(commitId, requestedAt);
    if (!ready.isEmpty()) {
      channel.send(ready);
    }
    long detachedAt = System.nanoTime();
    TaskState.Offered offered;
    TaskState.Detached detached = round.detached();
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
      long records = writtenSinceCut.getAndSet(0); // taken out of the writers with the round
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
    answered();
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

  /** Every pending batch was offered in an answer: a task that stops may leave ({@link #leave}). */
  private void answered() {
    if (!answeredSinceHandIn) {
      answeredSinceHandIn = true;
      state.wake();
    }
  }

  /**
   * Prepare ahead (docs/architecture.md): when the next commit request is due within the last
   * flush's duration and a margin ({@link AnswerSchedule}), cuts the batch now and closes its files
   * on the prepare thread, without the lock {@code put} needs; the request then answers with it at
   * once, or as soon as its files closed. The control thread calls it between its polls.
   */
  public void cutAheadIfDue() {
    if (ahead.busy()
        || !schedule.due(TimeUnit.NANOSECONDS.toMillis(System.nanoTime()), writtenSinceCut.get())) {
      return;
    }
    schedule.cutMade();
    cutAhead();
  }

  /** Milliseconds until {@link #cutAheadIfDue} has something to do; MAX_VALUE for never. */
  public long untilCutAheadMs() {
    return schedule.untilCutMs(
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime()), writtenSinceCut.get());
  }

  /** Whether the files of a batch cut ahead are still closing (control thread). */
  boolean closingAhead() {
    return ahead.busy();
  }

  /** Cuts the next request's batch now; false when there was nothing to cut. */
  boolean cutAhead() {
    Optional<TaskState.Detached> cut =
        state.cutAhead(() -> faults.at(FaultInjection.Point.BEFORE_PREPARE));
    if (cut.isEmpty()) {
      return false;
    }
    aheadRecords = writtenSinceCut.getAndSet(0);
    long cutAt = System.nanoTime();
    ahead.start(
        () -> {
          faults.at(FaultInjection.Point.FLUSH);
          TaskState.Offered offered = closeAndOffer(cut.get());
          long flushMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAt);
          return new PreparedAhead.Prepared(cut.get(), offered, cutAt, flushMs);
        });
    return true;
  }

  private static long fileCount(TaskState.Offered offered) {
    return offered.files().values().stream().mapToLong(PreparedFiles::files).sum();
  }

  /** The batches of earlier rounds offered again (a cut ahead that closed before is new). */
  private static int offeredAgain(TaskState.Round round, TaskState.Offered offered) {
    Set<String> fresh = new HashSet<>();
    offered.batches().forEach(p -> fresh.add(p.batch().batchId()));
    return (int)
        round.offeredAgain().stream().filter(p -> !fresh.contains(p.batch().batchId())).count();
  }

  /** From taken-out files to offered batches: closed without the lock, offered under it. */
  private TaskState.Offered closeAndOffer(TaskState.Detached detached) {
    return state.offer(
        detached, closer.close(detached.batches(), InFlightBatches.Preparing::files));
  }

  private static List<String> tables(TaskState.Detached detached) {
    return detached.batches().stream().map(p -> p.table().toString()).distinct().toList();
  }

  private ControlEvent.TaskDone taskDone(long commitId) {
    return new ControlEvent.TaskDone(
        connector, commitId, taskId, List.copyOf(state.assignedPartitions()));
  }

  /** TableCommitted: forget acknowledged batches; a rejected one makes the task start over. */
  public void onTableCommitted(ControlEvent.TableCommitted committed) {
    handOverWait.decided(committed.commitId(), System.nanoTime());
    state.decide(committed.decisions());
    // After the task's own batches: a held partition may open now.
    gate.decided(committed, TimeUnit.NANOSECONDS.toMillis(System.nanoTime()));
  }

  /**
   * Control thread: a task asked the coordinator for a round for its hand-over. Another task's
   * request makes the next new request one this task answers without taking its writers' records
   * out ({@link AnswerSchedule#unscheduled}).
   */
  public void onRoundRequest(ControlEvent.RoundRequest request) {
    if (request.taskId() != taskId) {
      schedule.handOverRequested();
    }
  }

  /**
   * Before partitions leave this task (a rebalance, or the task's stop; Connect has already
   * committed their offsets): hands in everything written so far as batches, asks the coordinator
   * for a round, and waits until every batch of the task is decided: up to {@code configuredMs}
   * ({@code commit.handover-timeout.ms}), or up to twice the last round where that is longer
   * ({@link HandOverWait}: rounds over hundreds of Paimon tables take longer). If no coordinator
   * answers within half of it (task 0 often moves in the same rebalance), the task commits its own
   * batches where the format allows ({@link OwnBatchCommitter}); where no format of the batches
   * allows it, the wait for the coordinator takes all of {@code timeoutMs}. True when nothing is
   * left in flight: the next owner of a partition finds its records in the tables and skips them,
   * and {@link #reset} rewinds nothing. False if the wait ran out, a batch was rejected or its
   * files could not be closed: the caller resets, and the records are written again.
   */
  public boolean handOver(long configuredMs) {
    if (handOverWait.timeoutMs(configuredMs) <= 0) {
      return false;
    }
    return handIn(false, configuredMs) && settle(configuredMs);
  }

  /**
   * Before partitions leave this task (a rebalance): closes what was written into batches and, when
   * {@code announce}, names every closed batch on the control topic at once (for no round: the
   * coordinator takes them only in answer to its request) and asks the coordinator for a round,
   * without waiting for it. The batches stay in flight here, offered in every round until decided;
   * the next owners of the partitions have seen them on the control topic by the time the rebalance
   * completes, and hold the partitions until they are decided ({@link #hold}). A batch still
   * closing (cut ahead on the control thread) is waited for, up to {@code configuredMs}. False if
   * the files could not be closed or a reset is asked for: the caller resets, and the records are
   * written again.
   */
  public boolean handIn(boolean announce, long configuredMs) {
    long started = System.nanoTime();
    if (state.resetRequested()) {
      return false;
    }
    TaskState.Offered offered = state.detachAndOffer(closer);
    if (offered.failure() != null) {
      LOG.warn(
          "Could not close the data files to hand them over; the task drops"
              + " its uncommitted work: {}",
          offered.failure().toString());
      return false;
    }
    int inFlight = state.inFlight();
    if (announce && inFlight > 0) {
      requestedSinceHandIn = false; // before the request: its answer may come at once
      answeredSinceHandIn = false;
      announce(started + TimeUnit.MILLISECONDS.toNanos(configuredMs));
      handedIn =
          state.pending().stream()
              .map(p -> p.batch().batchId())
              .collect(Collectors.toUnmodifiableSet());
      ownCommitAfterNanos = TimeUnit.MILLISECONDS.toNanos(configuredMs / 2);
      // The coordinator's time to answer counts from the request, not from the hand-in's start:
      // closing hundreds of files may take longer than half the hand-over timeout.
      handedInAt = System.nanoTime();
      LOG.info(
          "Handed in {} batches ({} closed now) in {} ms; the coordinator commits them, the next"
              + " owners read on after them",
          inFlight,
          offered.batches().size(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }
    return true;
  }

  /**
   * Before the task stops: waits until every batch in flight is decided, as {@link #handOver}
   * describes. True when nothing is left in flight.
   */
  public boolean settle(long configuredMs) {
    long started = System.nanoTime();
    long timeoutMs = handOverWait.timeoutMs(configuredMs);
    if (timeoutMs <= 0 || state.resetRequested()) {
      return false;
    }
    int handedIn = state.inFlight();
    if (handedIn == 0) {
      return !state.resetRequested();
    }
    // Half the time for the coordinator when the task can commit its own batches after it, all of
    // it when no table of the batches takes a second committer (Paimon): a 200-table round can
    // take longer than half.
    long coordinatorMs = ownCommitter.canCommitAny(state.pending()) ? timeoutMs / 2 : timeoutMs;
    awaitCoordinator(started + TimeUnit.MILLISECONDS.toNanos(coordinatorMs));
    if (!state.settled() && !state.resetRequested() && !Thread.currentThread().isInterrupted()) {
      commitOwn(state.pending());
    }
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    boolean done = state.settled();
    if (done) {
      LOG.info(
          "Handed over {} batches in {} ms; the next owners skip what they hold", handedIn, tookMs);
    } else {
      LOG.warn(
          "{} of {} handed-over batches were not committed within {} ms (a wait of up to {} ms){};"
              + " the task drops its uncommitted work and its records are written again",
          state.inFlight(),
          handedIn,
          tookMs,
          timeoutMs,
          state.resetRequested() ? " (a batch was rejected)" : "");
    }
    return done;
  }

  /**
   * How long a stopping task whose batches a next owner may read on after waits for a round to take
   * them: the coordinator, when idle, asks at once; when it is committing a round it asks after it,
   * and a 200-table round can take seconds.
   */
  static final long LEAVE_AFTER_MS = 1_000;

  /**
   * {@code SinkTask.stop}: waits until every batch in flight is decided, as {@link #settle} does;
   * but a task that does not run the coordinator, whose batches a next owner may all read on after
   * ({@link TableFormat#writeAfter}, each in one chunk), waits at most {@link #LEAVE_AFTER_MS} for
   * a round to take them, and no decision (docs/architecture.md, "Reading on after a hand-in"). The
   * next owners, its next instance included (the control topic is read back a while for hand-ins),
   * read on after them at once and offer them in their own rounds until decided. If no round took
   * them, it commits those a second committer may commit itself ({@link OwnBatchCommitter}).
   */
  public void leave(long configuredMs) {
    long started = System.nanoTime();
    List<InFlightBatches.Pending> pending = state.pending();
    if (taskId == 0
        || pending.isEmpty()
        || state.inFlight() != pending.size()
        || !pending.stream().allMatch(this::readOnAfterPossible)) {
      settle(configuredMs);
      return;
    }
    long waitMs = Math.min(LEAVE_AFTER_MS, handOverWait.timeoutMs(configuredMs));
    try {
      // No new round request: the hand-in asked for one, and a second would make the coordinator
      // wait for an answer after it, which this task, gone, would not give.
      state.awaitSettledOr(
          () -> answeredSinceHandIn, started + TimeUnit.MILLISECONDS.toNanos(waitMs));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    if (state.settled()) {
      LOG.info(
          "Handed over {} batches in {} ms; the next owners skip what they hold",
          pending.size(),
          tookMs);
    } else if (answeredSinceHandIn) {
      LOG.info(
          "Offered its {} handed-in batches in a round {} ms after the stop; the coordinator"
              + " commits them, the next owners read on after them",
          pending.size(),
          tookMs);
    } else if (ownCommitter.canCommitAny(pending)
        && !state.resetRequested()
        && !Thread.currentThread().isInterrupted()) {
      // No coordinator answered (task 0 may be moving too): commit what a second committer may
      // (Iceberg), so that no batch waits for a next owner that may not come (a connector paused).
      int decided = commitOwn(state.pending());
      LOG.info(
          "No round took its {} handed-in batches within {} ms of the stop; it committed {} of"
              + " them itself in {} ms, the next owners read on after the rest",
          pending.size(),
          tookMs,
          decided,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) - tookMs);
    } else {
      LOG.info(
          "No round took its {} handed-in batches within {} ms of the stop; it leaves them to the"
              + " next owners, which read on after them and offer them in their rounds",
          pending.size(),
          tookMs);
    }
  }

  /**
   * Cooperative rebalancing gives this task, which has writers, partitions new to it. Where a
   * writer may start above every batch of this task not committed yet ({@link
   * TableFormat#writeAfter}: Paimon, Iceberg append tables), it hands in what its writers hold,
   * makes the writers it opens later number above those batches, and closes its writers, so that it
   * can read on after the new partitions' batches at once ({@link #openable}) instead of waiting
   * for a round. False, with the files handed in and the writers left open, where a format does not
   * allow it or the files could not close: the caller then hands over and starts over as before.
   */
  public boolean startWritersOver(long configuredMs) {
    if (!handIn(false, configuredMs)) {
      return false;
    }
    List<WriteAfter> afters = new ArrayList<>();
    for (InFlightBatches.Pending p : state.pending()) {
      TableFormat format = formats.get(p.table().catalog());
      Optional<WriteAfter> after =
          format == null ? Optional.empty() : format.writeAfter(p.table(), p.batch().files());
      if (after.isEmpty()) {
        return false;
      }
      afters.add(after.get());
    }
    if (state.inFlight() != afters.size()) {
      return false; // a batch still closing
    }
    afters.forEach(WriteAfter::prepareWriters);
    return state.dropWriters();
  }

  /** Whether a next owner may read on after {@code p} before its decision. */
  private boolean readOnAfterPossible(InFlightBatches.Pending p) {
    TableFormat format = formats.get(p.table().catalog());
    PreparedFiles files = p.batch().files();
    return format != null
        && files.payload().length <= ControlChannel.CHUNK_BYTES
        && format.writeAfter(p.table(), files).isPresent();
  }

  /** Asks the coordinator for a round and waits, until {@code deadline}, for its decisions. */
  private void awaitCoordinator(long deadline) {
    requestRound();
    try {
      state.awaitSettled(deadline);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Sends the closed batches (after waiting for those closing until {@code deadline}) and asks for
   * a round.
   */
  private void announce(long deadline) {
    try {
      state.awaitClosed(deadline);
      // For no round (commit id 0): the next owners learn of the batches, no coordinator takes
      // them before it asks for them (a zombie coordinator thawing with its round in hand would
      // commit them beside its successor). Their first chunk says all the next owners need.
      List<ControlEvent> events = new ArrayList<>();
      for (ControlEvent e : answerEvents.of(ControlEvent.NO_ROUND, state.pending())) {
        if (e instanceof ControlEvent.BatchChunk chunk && chunk.chunk() == 0) {
          events.add(e);
        }
      }
      events.add(roundRequest());
      channel.send(events);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.warn("Could not send the handed-in batches to the coordinator: {}", e.toString());
    }
  }

  private ControlEvent.RoundRequest roundRequest() {
    return new ControlEvent.RoundRequest(connector, state.lastAnsweredCommit(), taskId);
  }

  private void requestRound() {
    try {
      channel.send(List.of(roundRequest()));
    } catch (RuntimeException e) {
      LOG.warn("Could not ask the coordinator for a round: {}", e.toString());
    }
  }

  /**
   * Control thread: when no coordinator asked for a round within half {@code
   * commit.handover-timeout.ms} of the last hand-in (task 0 may move in the same rebalance),
   * commits the handed-in batches still undecided itself, where their format takes a second
   * committer ({@link OwnBatchCommitter}: a batch the coordinator commits too is already present,
   * never added twice), and sends the decisions on the control topic, so that the next owners of
   * their partitions read on.
   */
  public void commitOwnIfDue() {
    long at = handedInAt;
    if (at < 0 || System.nanoTime() - at < ownCommitAfterNanos) {
      return;
    }
    handedInAt = -1;
    if (requestedSinceHandIn) {
      return; // a coordinator answered the hand-in's request: it decides
    }
    Set<String> ids = handedIn;
    List<InFlightBatches.Pending> undecided =
        state.pending().stream().filter(p -> ids.contains(p.batch().batchId())).toList();
    if (undecided.isEmpty() || !ownCommitter.canCommitAny(undecided)) {
      return;
    }
    int committed = commitOwn(undecided);
    LOG.info(
        "No coordinator asked for a round within {} ms of the hand-in's request: the task"
            + " committed {} of its {} undecided handed-in batches itself",
        TimeUnit.NANOSECONDS.toMillis(ownCommitAfterNanos),
        committed,
        undecided.size());
  }

  /**
   * Commits {@code pending} to the tables that take a second committer ({@link OwnBatchCommitter}),
   * applies the decisions and sends them on the control topic, so that the next owners of their
   * partitions read on. Returns how many batches were decided.
   */
  private int commitOwn(List<InFlightBatches.Pending> pending) {
    long commitId = Math.max(System.currentTimeMillis(), state.lastAnsweredCommit() + 1);
    Map<String, BatchPlan.Decision> decisions = ownCommitter.commit(pending, commitId);
    state.decide(decisions);
    Map<TableId, Map<String, BatchPlan.Decision>> byTable = new LinkedHashMap<>();
    for (InFlightBatches.Pending p : pending) {
      BatchPlan.Decision decision = decisions.get(p.batch().batchId());
      if (decision != null) {
        byTable
            .computeIfAbsent(p.table(), t -> new LinkedHashMap<>())
            .put(p.batch().batchId(), decision);
      }
    }
    try {
      channel.send(
          byTable.entrySet().stream()
              .map(
                  e ->
                      new ControlEvent.TableCommitted(
                          connector, commitId, e.getKey(), e.getValue()))
              .toList());
    } catch (RuntimeException e) {
      LOG.warn("Could not send the decisions on the handed-in batches: {}", e.toString());
    }
    return decisions.size();
  }

  /**
   * Partitions given to this task at {@code nowMs}: held until the batches handed in for them (by
   * their last owner, or by this task) are decided ({@link TakeOverGate}), at most the longer of
   * {@code commit.timeout.ms} and {@code handOverMs} (a last owner with no coordinator commits its
   * batches itself after half of {@code commit.handover-timeout.ms}); the caller writes none of
   * their records meanwhile. {@code returning}: this task had them until the rebalance and kept its
   * writers and positions, so it goes on after its own batches without waiting for their decision;
   * only other tasks' batches hold them.
   */
  public void hold(
      Collection<TopicPartition> partitions, long nowMs, long handOverMs, boolean returning) {
    gate.hold(partitions, nowMs, handOverMs, returning);
    if (channel.keepsOrder()) {
      channel.wakeup(); // the control thread reads the topic to its end now, not after its poll
    }
  }

  /** Revoked partitions are held no longer. */
  public void release(Collection<TopicPartition> partitions) {
    gate.release(partitions);
  }

  public boolean holds(TopicPartition tp) {
    return gate.holds(tp);
  }

  /** Batches in flight: preparing, or offered and undecided. */
  public int inFlightBatches() {
    return state.inFlight();
  }

  /** Waits up to {@code ms} for the control thread to note a decision or read up to an end. */
  public void awaitHeldChange(long ms) {
    gate.awaitChange(ms);
  }

  public boolean anyHeld() {
    return gate.anyHeld();
  }

  /**
   * The held partitions that may be read from now on; with {@code mayAdopt} (the task has no
   * writers and the partitions are new to it) also those whose undecided batches it may read on
   * after ({@link TakeOverGate.Opened#adopted}: the caller passes them to {@link #adopt}).
   */
  public List<TakeOverGate.Opened> openable(long nowMs, boolean mayAdopt) {
    return gate.anyHeld()
        ? gate.open(nowMs, state::inFlightCovers, state::inFlight, mayAdopt)
        : List.of();
  }

  /**
   * Reads on after {@code adoptions}, other tasks' undecided batches: they are pending here,
   * offered in every round until decided (a rejected one makes the task start over, like one of its
   * own), and the tables continue after them. Call after {@link #forget}. Returns how many were
   * new.
   */
  public int adopt(List<TakeOverGate.Adoption> adoptions) {
    return state.adopt(adoptions);
  }

  /**
   * Control thread: the coordinator this task answers started round {@code commitId}: a batch a
   * task did not offer again since is its task's last word once the round had its time ({@link
   * TakeOverGate}).
   */
  public void onRoundStarted(long commitId) {
    gate.roundStarted(commitId, TimeUnit.NANOSECONDS.toMillis(System.nanoTime()));
  }

  /** Control thread: a chunk of some task's batch passed on the control topic. */
  public void onBatchChunk(ControlEvent.BatchChunk chunk) {
    gate.offered(chunk, TimeUnit.NANOSECONDS.toMillis(System.nanoTime()));
  }

  /** Control thread, after each poll: see {@link TakeOverGate#sync}. */
  public void syncGate() {
    gate.sync(channel);
  }

  /**
   * The positions known for {@code partitions} (after batches this task offered) are forgotten:
   * they come from the tables' watermarks again, read when next needed.
   */
  public void forget(Collection<TopicPartition> partitions) {
    state.forget(partitions);
  }

  /**
   * Closes the writers (nothing is in them after a hand-in): the next records get writers made
   * after the decisions, younger than the watermarks they write past. False, and nothing closed,
   * when records were written since the hand-in.
   */
  public boolean dropWriters() {
    return state.dropWriters();
  }

  /** True while the task has writers. */
  public boolean hasWriters() {
    return state.hasWriters();
  }

  /**
   * Offsets this task had read and reads again after a rewind: a schema change, a rejected batch,
   * or partitions that left without their batches committed. Records among them are written twice.
   */
  public long rewoundOffsets() {
    return state.rewoundOffsets();
  }

  /** Milliseconds from the last commit request to this task's answer. */
  public long lastAnswerMs() {
    return answers.lastAnswerMs();
  }

  /** Answers slower than {@code commit.timeout.ms}: their rounds were committed without them. */
  public long lateAnswers() {
    return answers.lateAnswers();
  }

  /** True when a rejection, a schema change or a failed close asked for {@link #reset}. */
  public boolean resetRequested() {
    return state.resetRequested();
  }

  /**
   * Invariant <em>durable-offsets</em> (docs/architecture.md): per assigned topic-partition, the
   * oldest offset not yet durable in every table; partitions with nothing in flight keep Connect's
   * own position.
   */
  public Map<TopicPartition, Long> safeOffsets(Map<TopicPartition, Long> consumed) {
    return state.safeOffsets(consumed);
  }

  /**
   * Drops every writer and batch in flight, forgets loaded watermarks, and says where each assigned
   * partition must be read again from (the caller seeks there) and how much is read again. Until a
   * record of the new position arrives, {@link #safeOffsets} reports no more than that position.
   */
  public Rewind reset(Map<TopicPartition, Long> consumed) {
    return state.reset(consumed);
  }

  /**
   * Newly assigned partitions start at Connect's committed offsets, which are safe by construction.
   * True when the task has writers: a Paimon writer must not be older than the watermarks of a
   * partition it writes (its sequence numbers would rank a newer row below rows committed since),
   * so the caller hands in what they wrote and starts them over.
   */
  public boolean assigned(Collection<TopicPartition> partitions) {
    return state.assigned(partitions);
  }

  public void revoked(Collection<TopicPartition> partitions) {
    state.revoked(partitions);
  }

  public Set<TopicPartition> assignedPartitions() {
    return state.assignedPartitions();
  }

  public void close() {
    ahead.close();
    state.close();
    closer.close();
  }
}
