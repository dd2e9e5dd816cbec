package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.table.TableFormat;
import io.streamhouse.connect.table.WriteAfter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands a task's batches over when partitions leave it: a rebalance ({@link #handIn}, {@link
 * #startWritersOver}) or its stop ({@link #handOver}, {@link #settle}, {@link #leave}). It closes
 * what the writers hold into batches, names them on the control topic, asks the coordinator for a
 * round and waits, as long as each case needs, for their decisions; what became of the request is
 * watched by {@link HandInWatch}, which also commits the batches itself where no coordinator
 * answers. Called from the task's thread; the control thread asks it only whether a next owner may
 * read on after a batch another task handed in ({@link #writeAfter}, for the {@link TakeOverGate}).
 */
final class HandOver {
  /** The hand-over's log lines keep the logger they always had, which log settings name. */
  private static final Logger LOG = LoggerFactory.getLogger(Participant.class);

  private final String connector;
  private final int taskId;
  private final Map<String, TableFormat> formats;
  private final ControlChannel channel;
  private final TaskState state;
  private final BatchCloser closer;
  private final OwnBatchCommitter ownCommitter;
  private final HandOverWait handOverWait;
  private final AnswerEvents answerEvents;
  private final HandInWatch watch;

  HandOver(
      String connector,
      int taskId,
      Map<String, TableFormat> formats,
      ControlChannel channel,
      TaskState state,
      BatchCloser closer,
      OwnBatchCommitter ownCommitter,
      HandOverWait handOverWait,
      AnswerEvents answerEvents,
      HandInWatch watch) {
    this.connector = connector;
    this.taskId = taskId;
    this.formats = formats;
    this.channel = channel;
    this.state = state;
    this.closer = closer;
    this.ownCommitter = ownCommitter;
    this.handOverWait = handOverWait;
    this.answerEvents = answerEvents;
    this.watch = watch;
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
   * and {@link Participant#reset} rewinds nothing. False if the wait ran out, a batch was rejected
   * or its files could not be closed: the caller resets, and the records are written again.
   */
  boolean handOver(long configuredMs) {
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
   * completes, and hold the partitions until they are decided ({@link Participant#hold}). A batch
   * still closing (cut ahead on the control thread) is waited for, up to {@code configuredMs}.
   * False if the files could not be closed or a reset is asked for: the caller resets, and the
   * records are written again.
   */
  boolean handIn(boolean announce, long configuredMs) {
    long started = System.nanoTime();
    if (state.resetRequested()) {
      return false;
    }
    OfferedBatches offered = state.detachAndOffer(closer);
    if (offered.failure() != null) {
      LOG.warn(
          "Could not close the data files to hand them over; the task drops"
              + " its uncommitted work: {}",
          offered.failure().toString());
      return false;
    }
    int inFlight = state.inFlight();
    if (announce && inFlight > 0) {
      watch.announcing();
      announce(started + TimeUnit.MILLISECONDS.toNanos(configuredMs));
      watch.announced(configuredMs);
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
  boolean settle(long configuredMs) {
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
      watch.commitOwn(state.pending());
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
  void leave(long configuredMs) {
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
          watch::answeredSinceHandIn, started + TimeUnit.MILLISECONDS.toNanos(waitMs));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    if (state.settled()) {
      LOG.info(
          "Handed over {} batches in {} ms; the next owners skip what they hold",
          pending.size(),
          tookMs);
    } else if (watch.answeredSinceHandIn()) {
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
      int decided = watch.commitOwn(state.pending());
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
   * can read on after the new partitions' batches at once ({@link Participant#openable}) instead of
   * waiting for a round. False, with the files handed in and the writers left open, where a format
   * does not allow it or the files could not close: the caller then hands over and starts over as
   * before.
   */
  boolean startWritersOver(long configuredMs) {
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

  /** Whether a next owner may read on after the handed-in batch {@code chunk} (all of it). */
  Optional<WriteAfter> writeAfter(ControlEvent.BatchChunk chunk) {
    TableFormat format = formats.get(chunk.table().catalog());
    if (format == null) {
      return Optional.empty();
    }
    return format.writeAfter(
        chunk.table(),
        new PreparedFiles(
            chunk.payloadVersion(), chunk.data(), chunk.files(), chunk.records(), chunk.bytes()));
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
      state.awaitSettledOr(() -> false, deadline);
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
}
