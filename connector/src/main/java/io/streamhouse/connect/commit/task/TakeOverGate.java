package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.WriteAfter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Partitions given to a task, held (paused) until the batches handed in for them are decided.
 *
 * <p>A task that loses partitions hands in what it wrote and returns at once (its files are closed
 * and offered; the coordinator commits them in a round it starts for the hand-over). The next owner
 * must not read those partitions before that round decided: it would start from Connect's committed
 * offset, below the handed-in batch, write the same records again and have its batch rejected. So
 * it reads the control topic up to where it ended at the assignment (every batch handed in before
 * the rebalance completed is there), and opens a partition once no batch of any task that covers it
 * is undecided (a {@link ControlEvent.TableCommitted} names each decided batch), and none of this
 * task's own (unless the partition returns to the task that had it, which keeps its writers and
 * goes on after its own batches): or at the deadline, when a batch's task died before its round and
 * nobody will decide it (then a batch committed late is rejected against the new owner's, which
 * rewinds: still exactly once). A task without writers need not wait for batches announced at a
 * hand-in whose files a next owner may write after ({@link
 * io.streamhouse.connect.table.TableFormat#writeAfter}): it opens the partition at once and reads
 * on after them, offering them in its own rounds until decided (docs/architecture.md, "Reading on
 * after a hand-in").
 *
 * <p>Time alone does not say a task is gone: while no coordinator runs (it moves with its worker,
 * or a rebalance waits for a slow member), no round is started and no task offers anything. So a
 * batch counts as its task's last word, and a hold as run out, only once a round started after it
 * and had {@code commit.timeout.ms} to be answered; with no round at all, a hold runs out after
 * {@link #NO_ROUND_FACTOR} times its wait.
 *
 * <p>The batches are read from the control topic, which is untrusted: at most {@link
 * UndecidedBatches#MAX_TRACKED} are kept, and one not offered again for {@code forgetAfterMs}
 * (tasks offer undecided batches again in every round), in a round that started after it, is
 * forgotten ({@link UndecidedBatches}; the rounds are counted by {@link RoundStarts}). Thread-safe:
 * the control thread feeds it, the task's thread holds and opens partitions.
 */
public final class TakeOverGate {
  private static final Logger LOG = LoggerFactory.getLogger(TakeOverGate.class);

  /**
   * With no round started since a partition was held, it is read on after this many times its wait
   * (no coordinator: nothing is committed meanwhile anyway). Short, since the wait blocks {@code
   * SinkTask.open}, and with it the consumer group's next rebalance (2 x 30 s at the defaults, far
   * below {@code max.poll.interval.ms}).
   */
  static final int NO_ROUND_FACTOR = 2;

  /**
   * A partition held since {@code since}, until its batches are decided or {@code deadline}. {@code
   * returning}: this task had it until the rebalance and keeps its writers and positions, so its
   * own undecided batches do not hold it. {@code round}: the rounds started before it.
   */
  private record Held(long since, long deadline, long syncRequest, boolean returning, long round) {}

  /**
   * A batch of another task, handed in and undecided, that a next owner reads on after: it applies
   * {@code writeAfter} before writing to {@code table}, and offers the batch in its own rounds
   * until it is decided (invariant <em>contiguity</em> then keeps its own batches after it).
   */
  public record Adoption(TableId table, OfferedBatch batch, WriteAfter writeAfter) {}

  /**
   * A partition opened, after {@code waitedMs}; {@code expired}: at the deadline; {@code adopted}:
   * the undecided batches it is read on after.
   */
  public record Opened(
      TopicPartition partition, long waitedMs, boolean expired, List<Adoption> adopted) {
    public Opened(TopicPartition partition, long waitedMs, boolean expired) {
      this(partition, waitedMs, expired, List.of());
    }
  }

  private final String task;
  private final boolean ordered;
  private final long waitMs;
  private final Map<TopicPartition, Held> held = new HashMap<>();
  private final RoundStarts rounds = new RoundStarts();
  private final UndecidedBatches batches;
  private final Function<ControlEvent.BatchChunk, Optional<WriteAfter>> writeAfter;

  private long syncRequested;
  private long synced;

  // Control thread only.
  private Map<Integer, Long> target;
  private long targetRequest = -1;

  /**
   * {@code ordered}: the channel keeps one order and can say where it ends (the control topic);
   * else nothing handed in is waited for. {@code waitMs}: the longest a partition is held.
   */
  TakeOverGate(String task, boolean ordered, long waitMs, long forgetAfterMs) {
    this(task, ordered, waitMs, forgetAfterMs, chunk -> Optional.empty());
  }

  /**
   * {@code writeAfter}: for a batch announced at a hand-in, whether a next owner may read on after
   * it before its decision, and what it does first ({@link
   * io.streamhouse.connect.table.TableFormat#writeAfter}).
   */
  TakeOverGate(
      String task,
      boolean ordered,
      long waitMs,
      long forgetAfterMs,
      Function<ControlEvent.BatchChunk, Optional<WriteAfter>> writeAfter) {
    this.writeAfter = writeAfter;
    this.task = task;
    this.ordered = ordered;
    this.waitMs = waitMs;
    this.batches = new UndecidedBatches(forgetAfterMs, waitMs, rounds);
  }

  /**
   * Task thread: {@code partitions} were assigned at {@code nowMs}; they stay held until opened, at
   * most the longer of the gate's wait and {@code atLeastMs}. {@code returning}: the task had them
   * until this rebalance and goes on after its own batches, so only other tasks' batches hold them.
   */
  synchronized void hold(
      Collection<TopicPartition> partitions, long nowMs, long atLeastMs, boolean returning) {
    syncRequested++;
    if (!ordered) {
      synced = syncRequested;
    }
    for (TopicPartition tp : partitions) {
      held.put(
          tp,
          new Held(
              nowMs,
              nowMs + Math.max(waitMs, atLeastMs),
              syncRequested,
              returning,
              rounds.count()));
    }
  }

  /** Task thread: {@code partitions} were revoked; they are no longer held. */
  synchronized void release(Collection<TopicPartition> partitions) {
    partitions.forEach(held::remove);
  }

  /**
   * Control thread: the coordinator the task answers started round {@code commitId} at {@code
   * nowMs}.
   */
  synchronized void roundStarted(long commitId, long nowMs) {
    if (rounds.started(commitId, nowMs) && !held.isEmpty()) {
      notifyAll();
    }
  }

  /**
   * Whether {@code h} ran out: past its deadline, once a round started since and had {@code
   * commit.timeout.ms}; with no round since (no coordinator), after {@link #NO_ROUND_FACTOR} times
   * the wait.
   */
  private boolean ranOut(Held h, long nowMs) {
    if (nowMs < h.deadline()) {
      return false;
    }
    return rounds.answeredSince(h.round(), nowMs, waitMs)
        || nowMs - h.since() >= NO_ROUND_FACTOR * (h.deadline() - h.since());
  }

  synchronized boolean holds(TopicPartition tp) {
    return held.containsKey(tp);
  }

  synchronized boolean anyHeld() {
    return !held.isEmpty();
  }

  /**
   * Task thread: the held partitions that may be read now, no longer held: the control topic was
   * read past their assignment and no batch covering them is undecided ({@code ownInFlight}: this
   * task's own batches, which do not hold a returning partition; {@code ownBatch}: whether a batch
   * id is one of them), or their deadline passed.
   */
  synchronized List<Opened> open(
      long nowMs, Predicate<TopicPartition> ownInFlight, Predicate<String> ownBatch) {
    return open(nowMs, ownInFlight, ownBatch, false);
  }

  /**
   * {@link #open(long, Predicate, Predicate)}; with {@code mayAdopt} (the task has no writers) a
   * partition new to the task whose undecided batches were all announced at hand-ins as batches a
   * next owner may read on after opens at once: {@link Opened#adopted} names them
   * (docs/architecture.md, "Reading on after a hand-in").
   */
  synchronized List<Opened> open(
      long nowMs,
      Predicate<TopicPartition> ownInFlight,
      Predicate<String> ownBatch,
      boolean mayAdopt) {
    if (held.isEmpty()) {
      return List.of();
    }
    forgetStale(nowMs);
    List<Opened> opened = new ArrayList<>();
    for (Iterator<Map.Entry<TopicPartition, Held>> it = held.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<TopicPartition, Held> e = it.next();
      TopicPartition tp = e.getKey();
      Held h = e.getValue();
      boolean decided =
          synced >= h.syncRequest()
              && (h.returning()
                  ? !batches.covers(tp, ownBatch)
                  : !ownInFlight.test(tp) && !batches.covers(tp, id -> false));
      List<Adoption> adoptions =
          !decided
                  && mayAdopt
                  && synced >= h.syncRequest()
                  && !h.returning()
                  && !ownInFlight.test(tp)
              ? batches.adoptable(tp)
              : null;
      if (adoptions != null) {
        opened.add(new Opened(tp, nowMs - h.since(), false, adoptions));
        it.remove();
      } else if (decided || ranOut(h, nowMs)) {
        opened.add(new Opened(tp, nowMs - h.since(), !decided));
        it.remove();
      }
    }
    return opened;
  }

  /** Forgets the batches whose task is gone, with a warning for those that held a partition. */
  private void forgetStale(long nowMs) {
    for (UndecidedBatches.Forgotten f : batches.forgetStale(nowMs)) {
      List<TopicPartition> holding = f.partitions().stream().filter(held::containsKey).toList();
      if (!holding.isEmpty()) {
        LOG.warn(
            "{}: batch {} was not offered again for {} ms, in {} rounds since (its task is gone):"
                + " {} are read on without a decision on it",
            task,
            f.batchId(),
            f.unseenMs(),
            rounds.count() - f.round(),
            holding);
      }
    }
  }

  /**
   * Control thread: a batch was offered (a chunk of it); it is undecided until decided. A batch
   * announced at a hand-in in one chunk carries its files: whether a next owner may read on after
   * it is worked out here, outside the lock.
   */
  void offered(ControlEvent.BatchChunk chunk, long nowMs) {
    if (chunk.ranges().isEmpty()) {
      return;
    }
    Adoption adoptable = null;
    if (chunk.commitId() == ControlEvent.NO_ROUND
        && chunk.chunk() == 0
        && chunk.chunks() == 1
        && roomFor(chunk.data().length)) {
      try {
        adoptable =
            writeAfter
                .apply(chunk)
                .map(after -> new Adoption(chunk.table(), batchOf(chunk), after))
                .orElse(null);
      } catch (RuntimeException e) {
        LOG.debug("{}: batch {} cannot be read on after: {}", task, chunk.batchId(), e.toString());
      }
    }
    track(chunk, adoptable, nowMs);
  }

  private static OfferedBatch batchOf(ControlEvent.BatchChunk chunk) {
    return new OfferedBatch(
        chunk.batchId(),
        chunk.taskId(),
        Map.copyOf(chunk.ranges()),
        new PreparedFiles(
            chunk.payloadVersion(), chunk.data(), chunk.files(), chunk.records(), chunk.bytes()),
        chunk.maxRecordTimestamp());
  }

  private synchronized boolean roomFor(int bytes) {
    return batches.roomFor(bytes);
  }

  private synchronized void track(ControlEvent.BatchChunk chunk, Adoption adoptable, long nowMs) {
    batches.track(chunk, adoptable, nowMs);
  }

  /** Control thread: the batches {@code committed} names are decided. */
  synchronized void decided(ControlEvent.TableCommitted committed, long nowMs) {
    batches.decided(committed, nowMs);
    if (!held.isEmpty()) {
      notifyAll();
    }
  }

  /** Task thread: waits up to {@code ms} for a decision or a sync, while partitions are held. */
  synchronized void awaitChange(long ms) {
    if (held.isEmpty() || ms <= 0) {
      return;
    }
    try {
      wait(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Control thread, after each poll: when partitions were assigned since the last sync, notes where
   * the channel ends and, once read up to there, marks them synced.
   */
  void sync(ControlChannel channel) {
    long requested;
    synchronized (this) {
      requested = syncRequested;
      if (synced >= requested) {
        return;
      }
    }
    try {
      if (targetRequest != requested) {
        target = channel.endOffsets();
        targetRequest = requested;
      }
      if (channel.readUpTo(target)) {
        synchronized (this) {
          synced = Math.max(synced, targetRequest);
          notifyAll();
        }
      }
    } catch (WakeupException e) {
      throw e; // the control loop's, not a failure to read the topic
    } catch (RuntimeException e) {
      LOG.warn(
          "{} could not find where the control topic ends (tries again): {}", task, e.toString());
      targetRequest = -1;
    }
  }

  /** Undecided batches being tracked (for tests). */
  synchronized int tracked() {
    return batches.size();
  }
}
