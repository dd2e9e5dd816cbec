package io.streamhouse.connect.commit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
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
 * task's own: or at the deadline, when a batch's task died before its round and nobody will decide
 * it (then a batch committed late is rejected against the new owner's, which rewinds: still exactly
 * once).
 *
 * <p>The batches are read from the control topic, which is untrusted: at most {@link #MAX_TRACKED}
 * are kept, and one not offered again for {@code forgetAfterMs} (tasks offer undecided batches
 * again in every round) is forgotten. Thread-safe: the control thread feeds it, the task's thread
 * holds and opens partitions.
 */
public final class TakeOverGate {
  private static final Logger LOG = LoggerFactory.getLogger(TakeOverGate.class);

  static final int MAX_TRACKED = 100_000;

  /** A partition held since {@code since}, until its batches are decided or {@code deadline}. */
  private record Held(long since, long deadline, long syncRequest) {}

  /** An undecided batch as seen on the control topic: its partitions, and when last seen. */
  private record Seen(Set<TopicPartition> partitions, long seenAt) {}

  /** A partition opened, after {@code waitedMs}; {@code expired}: at the deadline. */
  public record Opened(TopicPartition partition, long waitedMs, boolean expired) {}

  private final String task;
  private final boolean ordered;
  private final long waitMs;
  private final long forgetAfterMs;
  private final Map<TopicPartition, Held> held = new HashMap<>();
  private final LinkedHashMap<String, Seen> undecided = new LinkedHashMap<>();
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
    this.task = task;
    this.ordered = ordered;
    this.waitMs = waitMs;
    this.forgetAfterMs = forgetAfterMs;
  }

  /**
   * Task thread: {@code partitions} were assigned at {@code nowMs}; they stay held until opened, at
   * most the longer of the gate's wait and {@code atLeastMs}.
   */
  synchronized void hold(Collection<TopicPartition> partitions, long nowMs, long atLeastMs) {
    syncRequested++;
    if (!ordered) {
      synced = syncRequested;
    }
    for (TopicPartition tp : partitions) {
      held.put(tp, new Held(nowMs, nowMs + Math.max(waitMs, atLeastMs), syncRequested));
    }
  }

  /** Task thread: {@code partitions} were revoked; they are no longer held. */
  synchronized void release(Collection<TopicPartition> partitions) {
    partitions.forEach(held::remove);
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
   * task's own batches), or their deadline passed.
   */
  synchronized List<Opened> open(long nowMs, Predicate<TopicPartition> ownInFlight) {
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
      boolean decided = synced >= h.syncRequest() && !ownInFlight.test(tp) && !undecidedCovers(tp);
      if (decided || nowMs >= h.deadline()) {
        opened.add(new Opened(tp, nowMs - h.since(), !decided));
        it.remove();
      }
    }
    return opened;
  }

  private boolean undecidedCovers(TopicPartition tp) {
    for (Seen seen : undecided.values()) {
      if (seen.partitions().contains(tp)) {
        return true;
      }
    }
    return false;
  }

  private void forgetStale(long nowMs) {
    undecided.values().removeIf(s -> nowMs - s.seenAt() > forgetAfterMs);
  }

  /** Control thread: a batch was offered (a chunk of it); it is undecided until decided. */
  synchronized void offered(ControlEvent.BatchChunk chunk, long nowMs) {
    if (chunk.ranges().isEmpty()) {
      return;
    }
    undecided.remove(chunk.batchId()); // re-inserted last: the oldest go first when full
    undecided.put(chunk.batchId(), new Seen(Set.copyOf(chunk.ranges().keySet()), nowMs));
    while (undecided.size() > MAX_TRACKED) {
      Iterator<String> oldest = undecided.keySet().iterator();
      oldest.next();
      oldest.remove();
    }
  }

  /** Control thread: the batches {@code committed} names are decided. */
  synchronized void decided(ControlEvent.TableCommitted committed) {
    committed.decisions().keySet().forEach(undecided::remove);
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
