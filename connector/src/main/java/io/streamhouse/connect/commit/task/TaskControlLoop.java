package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.coordinator.Coordinator;
import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.commit.wire.ControlEvent;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's answers to the coordinator, on a thread of its own so that an idle task never delays a
 * commit: commit requests to the {@link Participant}, compaction jobs to the {@link
 * CompactionRunner}, decisions back to the participant. Of the commit requests that arrived
 * together only the last is answered: the coordinator repeats its request every second while a
 * round waits, and a task that was busy longer finds many; after an answer later than {@code
 * commit.timeout.ms} it reads the topic up to its end first, so that the last is the round in
 * progress ({@link #readOnAfterALateAnswer}). Between polls it lets the participant cut the next
 * round's batch ahead of its request when that is due ({@link Participant#cutAheadIfDue}). Batches
 * offered by any task are noted, so that partitions this task is given wait for the decision on
 * what their last owner handed in ({@link TakeOverGate}). A failure of the loop is kept for the
 * task to report at its next call.
 *
 * <p>Requests are answered for the latest coordinator only (the largest {@link
 * ControlEvent.StartCommit#coordinator}): a zombie task 0, frozen past its session and thawed while
 * its successor runs, gets no batches to commit. An earlier coordinator is answered again once the
 * latest was not heard for the stand-down time ({@link Coordinator#standDownMs}).
 */
public final class TaskControlLoop implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(TaskControlLoop.class);
  private static final long POLL_MS = 200;

  /** How long the loop reads on to the end of the control topic after a late answer, at most. */
  private static final long READ_ON_MS = 1_000;

  private final String task;
  private final ControlChannel channel;
  private final Participant participant;
  private final CompactionRunner compactions;
  private final long standDownMs;
  private final Clock clock;
  private volatile boolean running = true;
  private volatile Throwable failure;
  private long latestCoordinator = -1;
  private long latestHeardAt;

  /**
   * The participant's late answers the loop has read on after ({@link #readOnAfterALateAnswer}).
   */
  private long lateAnswersSeen;

  public TaskControlLoop(
      String task,
      ControlChannel channel,
      Participant participant,
      CompactionRunner compactions,
      long standDownMs,
      Clock clock) {
    this.task = task;
    this.channel = channel;
    this.participant = participant;
    this.compactions = compactions;
    this.standDownMs = standDownMs;
    this.clock = clock;
  }

  @Override
  public void run() {
    boolean woken = false;
    while (running) {
      try {
        long pollMs = woken ? 0 : Math.max(1, Math.min(POLL_MS, participant.untilCutAheadMs()));
        woken = false;
        step(pollMs);
      } catch (WakeupException e) {
        // stop(), or partitions assigned: the control topic is read up to its end now, not after
        // the poll in progress (the next poll takes what has arrived and returns)
        woken = true;
      } catch (RuntimeException e) {
        if (running) {
          LOG.error("The control loop failed; the task fails at its next put", e);
          failure = e;
        }
        return;
      }
    }
  }

  /**
   * One turn of the loop: reads the control topic for up to {@code pollMs}, answers, and then does
   * what is due.
   */
  void step(long pollMs) {
    List<ControlEvent> events = new ArrayList<>(channel.poll(Duration.ofMillis(pollMs)));
    try {
      readOnAfterALateAnswer(events);
    } finally {
      dispatch(events); // what was read, even when a wake-up ended the reading on
    }
    participant.syncGate();
    participant.cutAheadIfDue();
    participant.commitOwnIfDue();
  }

  /**
   * After an answer slower than {@code commit.timeout.ms}, reads the control topic on from {@code
   * events} up to where it ends now (for at most {@link #READ_ON_MS}). A poll after a long step
   * returns what the consumer fetched in the step's first moments: requests of rounds the
   * coordinator committed meanwhile, without the one in progress. The coordinator takes batches
   * only for the round in progress, so a task that answered such a request offered its undecided
   * batches again in vain, and, if that answer was late too, did so in every round after: its
   * batches were never committed (SlowTaskE2E). Reading on, it answers the round in progress, which
   * takes the batches it offers again at once. Only after a late answer: finding the topic's end
   * costs a request to the brokers.
   */
  private void readOnAfterALateAnswer(List<ControlEvent> events) {
    long late = participant.lateAnswers();
    if (late == lateAnswersSeen) {
      return;
    }
    Map<Integer, Long> ends;
    try {
      ends = channel.endOffsets();
    } catch (RuntimeException e) {
      LOG.warn(
          "{} could not find where the control topic ends; answers the last request it read: {}",
          task,
          e.toString());
      lateAnswersSeen = late;
      return;
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READ_ON_MS);
    while (!channel.readUpTo(ends) && System.nanoTime() < deadline) {
      events.addAll(channel.poll(Duration.ofMillis(POLL_MS))); // a wake-up: the next step reads on
    }
    lateAnswersSeen = late;
  }

  void dispatch(List<ControlEvent> events) {
    ControlEvent lastStart = null;
    for (ControlEvent event : events) {
      if (event instanceof ControlEvent.StartCommit start && fromLatestCoordinator(start)) {
        lastStart = event;
        participant.onRoundStarted(start.commitId()); // a round, answered or passed over
      }
    }
    for (ControlEvent event : events) {
      if (event instanceof ControlEvent.StartCommit start) {
        if (event == lastStart) {
          participant.onStartCommit(start.commitId());
          // After the answer: what it releases is written into the next round's batches.
          participant.transactions().release(start.released());
        }
      } else if (event instanceof ControlEvent.CompactRequest request) {
        compactions.submit(request);
      } else if (event instanceof ControlEvent.TableCommitted committed) {
        participant.onTableCommitted(committed);
      } else if (event instanceof ControlEvent.BatchChunk chunk) {
        participant.onBatchChunk(chunk); // some task's batch, maybe of partitions this one takes
      } else if (event instanceof ControlEvent.RoundRequest request) {
        participant.onRoundRequest(request); // the next round is a hand-over's
      }
    }
  }

  /**
   * Whether {@code start} comes from the latest coordinator heard (or from an earlier one after the
   * latest fell silent for the stand-down time), which it then is.
   */
  private boolean fromLatestCoordinator(ControlEvent.StartCommit start) {
    long now = clock.millis();
    if (start.coordinator() == latestCoordinator) {
      latestHeardAt = now;
      return true;
    }
    if (start.coordinator() > latestCoordinator || now - latestHeardAt >= standDownMs) {
      if (latestCoordinator >= 0) {
        LOG.info(
            "{} answers coordinator {} from now on (it answered coordinator {})",
            task,
            start.coordinator(),
            latestCoordinator);
      }
      latestCoordinator = start.coordinator();
      latestHeardAt = now;
      return true;
    }
    LOG.debug(
        "{} passes over commit {} of coordinator {}: a later one ({}) runs",
        task,
        start.commitId(),
        start.coordinator(),
        latestCoordinator);
    return false;
  }

  /** Why the loop stopped, if it failed. */
  public Throwable failure() {
    return failure;
  }

  /** Ends the loop; the caller wakes the channel up and joins the thread. */
  public void stop() {
    running = false;
  }
}
