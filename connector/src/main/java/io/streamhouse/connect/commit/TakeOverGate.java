package io.streamhouse.connect.commit;

import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.WriteAfter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
 * <p>The batches are read from the control topic, which is untrusted: at most {@link #MAX_TRACKED}
 * are kept, and one not offered again for {@code forgetAfterMs} (tasks offer undecided batches
 * again in every round), in a round that started after it, is forgotten. Thread-safe: the control
 * thread feeds it, the task's thread holds and opens partitions.
 */
public final class TakeOverGate {
  private static final Logger LOG = LoggerFactory.getLogger(TakeOverGate.class);

  static final int MAX_TRACKED = 100_000;

  /**
   * With no round started since a partition was held, it is read on after this many times its wait
   * (no coordinator: nothing is committed meanwhile anyway). Short, since the wait blocks {@code
   * SinkTask.open}, and with it the consumer group's next rebalance (2 x 30 s at the defaults, far
   * below {@code max.poll.interval.ms}).
   */
  static final int NO_ROUND_FACTOR = 2;

  /** How many round starts are remembered (a batch or hold older than that many rounds had one). */
  private static final int ROUND_RING = 16;

  /**
   * A partition held since {@code since}, until its batches are decided or {@code deadline}. {@code
   * returning}: this task had it until the rebalance and keeps its writers and positions, so its
   * own undecided batches do not hold it. {@code round}: the rounds started before it.
   */
  private record Held(long since, long deadline, long syncRequest, boolean returning, long round) {}

  /**
   * The files of batches announced at hand-ins kept for next owners to read on after, at most this
   * many bytes in all (they come from an untrusted topic); a batch beyond is waited for instead.
   */
  static final long MAX_ADOPTABLE_BYTES = 64L * 1024 * 1024;

  /**
   * An undecided batch as seen on the control topic: its partitions, when last seen and how many
   * rounds had started by then, and, for one announced at a hand-in that a next owner may read on
   * after, the batch and what to do first (null otherwise).
   */
  private record Seen(Set<TopicPartition> partitions, long seenAt, long round, Adoption adoptable) {
    long bytes() {
      return adoptable == null ? 0 : adoptable.batch().files().payload().length;
    }
  }

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
  private final long forgetAfterMs;
  private final Map<TopicPartition, Held> held = new HashMap<>();
  private final LinkedHashMap<String, Seen> undecided = new LinkedHashMap<>();
  private final Function<ControlEvent.BatchChunk, Optional<WriteAfter>> writeAfter;

  /** Payload bytes of the adoptable batches among {@link #undecided}. */
  private long adoptableBytes;

  /**
   * Batches decided lately, and when: a task that hands in a batch its coordinator decided a moment
   * before names it on the control topic after the decision, and that late name must not hold a
   * partition until it is forgotten. Kept for {@code forgetAfterMs} after the decision, and at most
   * {@link #MAX_TRACKED}.
   */
  private final LinkedHashMap<String, Long> decided = new LinkedHashMap<>();

  private long syncRequested;
  private long synced;

  /** Rounds started (as this task heard them), when the last {@link #ROUND_RING} started. */
  private long rounds;

  private final long[] roundStarts = new long[ROUND_RING];
  private long lastRoundId = Long.MIN_VALUE;

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
    this.forgetAfterMs = forgetAfterMs;
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
          new Held(nowMs, nowMs + Math.max(waitMs, atLeastMs), syncRequested, returning, rounds));
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
    if (commitId == lastRoundId) {
      return;
    }
    lastRoundId = commitId;
    rounds++;
    roundStarts[(int) (rounds % ROUND_RING)] = nowMs;
    if (!held.isEmpty()) {
      notifyAll();
    }
  }

  /**
   * Whether a round started after the first {@code before} rounds, at least {@code answerMs} before
   * {@code nowMs}: one its tasks had the time to answer (and its coordinator to decide).
   */
  private boolean roundAnsweredSince(long before, long nowMs, long answerMs) {
    if (rounds <= before) {
      return false;
    }
    if (rounds - before >= ROUND_RING) {
      return true; // the first of them started long ago
    }
    return nowMs - roundStarts[(int) ((before + 1) % ROUND_RING)] >= answerMs;
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
    return roundAnsweredSince(h.round(), nowMs, waitMs)
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
                  ? !undecidedCovers(tp, ownBatch)
                  : !ownInFlight.test(tp) && !undecidedCovers(tp, id -> false));
      List<Adoption> adoptions =
          !decided
                  && mayAdopt
                  && synced >= h.syncRequest()
                  && !h.returning()
                  && !ownInFlight.test(tp)
              ? adoptable(tp)
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

  /**
   * The undecided batches covering {@code tp} if a next owner may read on after every one of them;
   * else null.
   */
  private List<Adoption> adoptable(TopicPartition tp) {
    List<Adoption> adoptions = new ArrayList<>();
    for (Seen seen : undecided.values()) {
      if (seen.partitions().contains(tp)) {
        if (seen.adoptable() == null) {
          return null;
        }
        adoptions.add(seen.adoptable());
      }
    }
    return adoptions;
  }

  /** Whether an undecided batch covers {@code tp}, other than those {@code ignored} names. */
  private boolean undecidedCovers(TopicPartition tp, Predicate<String> ignored) {
    for (Map.Entry<String, Seen> e : undecided.entrySet()) {
      if (e.getValue().partitions().contains(tp) && !ignored.test(e.getKey())) {
        return true;
      }
    }
    return false;
  }

  private void forgetStale(long nowMs) {
    for (Iterator<Map.Entry<String, Seen>> it = undecided.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Seen> e = it.next();
      long unseenMs = nowMs - e.getValue().seenAt();
      if (unseenMs > forgetAfterMs && roundAnsweredSince(e.getValue().round(), nowMs, waitMs)) {
        it.remove();
        adoptableBytes -= e.getValue().bytes();
        List<TopicPartition> holding =
            e.getValue().partitions().stream().filter(held::containsKey).toList();
        if (!holding.isEmpty()) {
          LOG.warn(
              "{}: batch {} was not offered again for {} ms, in {} rounds since (its task is gone):"
                  + " {} are read on without a decision on it",
              task,
              e.getKey(),
              unseenMs,
              rounds - e.getValue().round(),
              holding);
        }
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
    return adoptableBytes + bytes <= MAX_ADOPTABLE_BYTES;
  }

  private synchronized void track(ControlEvent.BatchChunk chunk, Adoption adoptable, long nowMs) {
    if (decided.containsKey(chunk.batchId())) {
      return;
    }
    Seen before = undecided.remove(chunk.batchId());
    if (before != null) {
      adoptableBytes -= before.bytes();
      if (adoptable == null) {
        adoptable = before.adoptable(); // a later offer of a batch announced at a hand-in
      }
    }
    Seen seen = new Seen(Set.copyOf(chunk.ranges().keySet()), nowMs, rounds, adoptable);
    undecided.put(chunk.batchId(), seen);
    adoptableBytes += seen.bytes();
    while (undecided.size() > MAX_TRACKED) {
      Iterator<Seen> oldest = undecided.values().iterator();
      adoptableBytes -= oldest.next().bytes();
      oldest.remove();
    }
  }

  /** Control thread: the batches {@code committed} names are decided. */
  synchronized void decided(ControlEvent.TableCommitted committed, long nowMs) {
    for (String batchId : committed.decisions().keySet()) {
      Seen seen = undecided.remove(batchId);
      if (seen != null) {
        adoptableBytes -= seen.bytes();
      }
      putLast(decided, batchId, nowMs);
    }
    // Oldest first: those decided longer ago than a batch is remembered go.
    Iterator<Long> oldest = decided.values().iterator();
    while (oldest.hasNext() && nowMs - oldest.next() > forgetAfterMs) {
      oldest.remove();
    }
    if (!held.isEmpty()) {
      notifyAll();
    }
  }

  /**
   * Puts {@code key} last in {@code map} (the oldest go first), keeping at most {@link
   * #MAX_TRACKED}.
   */
  private static <V> void putLast(LinkedHashMap<String, V> map, String key, V value) {
    map.remove(key);
    map.put(key, value);
    while (map.size() > MAX_TRACKED) {
      Iterator<String> oldest = map.keySet().iterator();
      oldest.next();
      oldest.remove();
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
    return undecided.size();
  }
}
