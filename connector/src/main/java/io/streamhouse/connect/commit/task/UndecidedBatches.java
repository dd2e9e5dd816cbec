package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.wire.ControlEvent;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;

/**
 * The batches of any task that the control topic shows undecided, as the {@link TakeOverGate} needs
 * them: the partitions each covers, when it was last offered, and, for one announced at a hand-in
 * that a next owner may read on after, what that takes ({@link TakeOverGate.Adoption}); and the
 * batches decided lately, whose late names must not count as undecided. The topic is untrusted: at
 * most {@link #MAX_TRACKED} batches and {@link #MAX_ADOPTABLE_BYTES} of files are kept, and a batch
 * not offered again for {@code forgetAfterMs}, in a round that started after it, is forgotten. Not
 * thread-safe: the gate calls it under its lock.
 */
final class UndecidedBatches {
  static final int MAX_TRACKED = 100_000;

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
  private record Seen(
      Set<TopicPartition> partitions, long seenAt, long round, TakeOverGate.Adoption adoptable) {
    long bytes() {
      return adoptable == null ? 0 : adoptable.batch().files().payload().length;
    }
  }

  /**
   * A batch forgotten since it was not offered again for {@code unseenMs}, though a round started
   * after {@code round} (the rounds started when it was last seen) had its time: its task is gone.
   */
  record Forgotten(String batchId, Set<TopicPartition> partitions, long unseenMs, long round) {}

  private final long forgetAfterMs;
  private final long answerMs;
  private final RoundStarts rounds;
  private final LinkedHashMap<String, Seen> undecided = new LinkedHashMap<>();

  /** Payload bytes of the adoptable batches among {@link #undecided}. */
  private long adoptableBytes;

  /**
   * Batches decided lately, and when: a task that hands in a batch its coordinator decided a moment
   * before names it on the control topic after the decision, and that late name must not hold a
   * partition until it is forgotten. Kept for {@code forgetAfterMs} after the decision, and at most
   * {@link #MAX_TRACKED}.
   */
  private final LinkedHashMap<String, Long> decided = new LinkedHashMap<>();

  /**
   * {@code answerMs}: how long a round that started after a batch was last seen has to be answered
   * before the batch may be forgotten ({@link RoundStarts#answeredSince}).
   */
  UndecidedBatches(long forgetAfterMs, long answerMs, RoundStarts rounds) {
    this.forgetAfterMs = forgetAfterMs;
    this.answerMs = answerMs;
    this.rounds = rounds;
  }

  /** Whether the files of a batch of {@code bytes} more may be kept for next owners. */
  boolean roomFor(int bytes) {
    return adoptableBytes + bytes <= MAX_ADOPTABLE_BYTES;
  }

  /**
   * A chunk of a batch was offered at {@code nowMs}; {@code adoptable}: what a next owner does to
   * read on after it, null when it may not.
   */
  void track(ControlEvent.BatchChunk chunk, TakeOverGate.Adoption adoptable, long nowMs) {
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
    Seen seen = new Seen(Set.copyOf(chunk.ranges().keySet()), nowMs, rounds.count(), adoptable);
    undecided.put(chunk.batchId(), seen);
    adoptableBytes += seen.bytes();
    while (undecided.size() > MAX_TRACKED) {
      Iterator<Seen> oldest = undecided.values().iterator();
      adoptableBytes -= oldest.next().bytes();
      oldest.remove();
    }
  }

  /** The batches {@code committed} names are decided, at {@code nowMs}. */
  void decided(ControlEvent.TableCommitted committed, long nowMs) {
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

  /**
   * The undecided batches covering {@code tp} if a next owner may read on after every one of them;
   * else null.
   */
  List<TakeOverGate.Adoption> adoptable(TopicPartition tp) {
    List<TakeOverGate.Adoption> adoptions = new ArrayList<>();
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
  boolean covers(TopicPartition tp, Predicate<String> ignored) {
    for (Map.Entry<String, Seen> e : undecided.entrySet()) {
      if (e.getValue().partitions().contains(tp) && !ignored.test(e.getKey())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Forgets the batches not offered again for {@code forgetAfterMs} before {@code nowMs}, in a
   * round that started after them and had its time; returns them, oldest first.
   */
  List<Forgotten> forgetStale(long nowMs) {
    List<Forgotten> forgotten = new ArrayList<>();
    for (Iterator<Map.Entry<String, Seen>> it = undecided.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Seen> e = it.next();
      long unseenMs = nowMs - e.getValue().seenAt();
      if (unseenMs > forgetAfterMs && rounds.answeredSince(e.getValue().round(), nowMs, answerMs)) {
        it.remove();
        adoptableBytes -= e.getValue().bytes();
        forgotten.add(
            new Forgotten(e.getKey(), e.getValue().partitions(), unseenMs, e.getValue().round()));
      }
    }
    return forgotten;
  }

  /** Undecided batches being tracked. */
  int size() {
    return undecided.size();
  }
}
