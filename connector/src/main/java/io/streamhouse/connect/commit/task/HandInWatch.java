package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.TableId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the task's last hand-in ({@link HandOver#handIn}): whether a coordinator asked for a
 * round and the task answered one since, and, where no coordinator asks in time, commits the
 * handed-in batches itself ({@link OwnBatchCommitter}) and sends the decisions on the control
 * topic, so that the next owners of their partitions read on. The task's thread hands in, the
 * control thread reports requests and answers; both may commit.
 */
final class HandInWatch {
  /** The hand-over's log lines keep the logger they always had, which log settings name. */
  private static final Logger LOG = LoggerFactory.getLogger(Participant.class);

  private final String connector;
  private final ControlChannel channel;
  private final TaskState state;
  private final OwnBatchCommitter ownCommitter;

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

  HandInWatch(
      String connector, ControlChannel channel, TaskState state, OwnBatchCommitter ownCommitter) {
    this.connector = connector;
    this.channel = channel;
    this.state = state;
    this.ownCommitter = ownCommitter;
  }

  /**
   * A hand-in is about to ask for a round: before the request, since its answer may come at once.
   */
  void announcing() {
    requestedSinceHandIn = false;
    answeredSinceHandIn = false;
  }

  /**
   * The hand-in announced the pending batches and asked for a round: they are committed by the task
   * itself if no coordinator asks for a round within half of {@code configuredMs}.
   */
  void announced(long configuredMs) {
    handedIn =
        state.pending().stream()
            .map(p -> p.batch().batchId())
            .collect(Collectors.toUnmodifiableSet());
    ownCommitAfterNanos = TimeUnit.MILLISECONDS.toNanos(configuredMs / 2);
    // The coordinator's time to answer counts from the request, not from the hand-in's start:
    // closing hundreds of files may take longer than half the hand-over timeout.
    handedInAt = System.nanoTime();
  }

  /** A commit request (of the latest coordinator) arrived. */
  void requested() {
    requestedSinceHandIn = true;
  }

  /**
   * Every pending batch was offered in an answer: a task that stops may leave ({@link
   * HandOver#leave}).
   */
  void answered() {
    if (!answeredSinceHandIn) {
      answeredSinceHandIn = true;
      state.wake();
    }
  }

  /**
   * Whether the task answered a commit request, offering every pending batch, since the hand-in.
   */
  boolean answeredSinceHandIn() {
    return answeredSinceHandIn;
  }

  /**
   * Control thread: when no coordinator asked for a round within half {@code
   * commit.handover-timeout.ms} of the last hand-in (task 0 may move in the same rebalance),
   * commits the handed-in batches still undecided itself, where their format takes a second
   * committer ({@link OwnBatchCommitter}: a batch the coordinator commits too is already present,
   * never added twice), and sends the decisions on the control topic, so that the next owners of
   * their partitions read on.
   */
  void commitOwnIfDue() {
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
  int commitOwn(List<InFlightBatches.Pending> pending) {
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
}
