package io.streamhouse.connect.protocol;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;

/**
 * Invariant <em>contiguity</em> (docs/architecture.md) for one table and one commit: which offered
 * batches go into the next snapshot, which are already in the table, which must be rejected, and
 * the watermarks the snapshot records. Pure: the committer re-plans against the table state inside
 * its atomic commit, so a plan is only as good as the watermarks it was made from.
 */
public final class BatchPlan {
  /** What happens to one batch. */
  public enum Decision {
    APPLY,
    ALREADY_PRESENT,
    REJECT
  }

  /** A batch as the plan sees it: an id and its offset ranges. */
  public record Offer(String batchId, Map<TopicPartition, OffsetRange> ranges) {}

  private final Map<String, Decision> decisions;
  private final Watermarks before;
  private final Watermarks after;

  private BatchPlan(Map<String, Decision> decisions, Watermarks before, Watermarks after) {
    this.decisions = decisions;
    this.before = before;
    this.after = after;
  }

  /**
   * Plans {@code offers} against the table's watermarks {@code current}. A batch applies when, for
   * every topic-partition it covers, its {@code from} is where the table continues: the watermark,
   * or, for a partition the table never saw, the lowest {@code from} offered for it (the first
   * offset the connector consumed). Batches apply in chains until none fits any more; a batch whose
   * every {@code to} is at or below the watermark is already present; the rest is rejected.
   */
  public static BatchPlan of(Watermarks current, List<Offer> offers) {
    Map<TopicPartition, Long> wm = new HashMap<>(current.asMap());
    Map<TopicPartition, Long> firstOffered = new HashMap<>();
    for (Offer offer : offers) {
      offer
          .ranges()
          .forEach(
              (tp, r) -> {
                if (!wm.containsKey(tp)) {
                  firstOffered.merge(tp, r.from(), Math::min);
                }
              });
    }
    List<Offer> remaining = new ArrayList<>(offers);
    remaining.sort(Comparator.comparingLong(BatchPlan::lowestFrom).thenComparing(Offer::batchId));
    Map<String, Decision> decisions = new LinkedHashMap<>();
    boolean progress = true;
    while (progress) {
      progress = false;
      for (Iterator<Offer> it = remaining.iterator(); it.hasNext(); ) {
        Offer offer = it.next();
        if (allPresent(wm, offer)) {
          decisions.put(offer.batchId(), Decision.ALREADY_PRESENT);
        } else if (continuesTable(wm, firstOffered, offer)) {
          decisions.put(offer.batchId(), Decision.APPLY);
          offer.ranges().forEach((tp, range) -> wm.put(tp, range.to()));
        } else {
          continue;
        }
        it.remove();
        progress = true;
      }
    }
    remaining.forEach(offer -> decisions.put(offer.batchId(), Decision.REJECT));
    return new BatchPlan(decisions, current, Watermarks.of(wm));
  }

  private static boolean allPresent(Map<TopicPartition, Long> wm, Offer offer) {
    if (offer.ranges().isEmpty()) {
      return false;
    }
    for (Map.Entry<TopicPartition, OffsetRange> e : offer.ranges().entrySet()) {
      Long mark = wm.get(e.getKey());
      if (mark == null || e.getValue().to() > mark) {
        return false;
      }
    }
    return true;
  }

  private static boolean continuesTable(
      Map<TopicPartition, Long> wm, Map<TopicPartition, Long> firstOffered, Offer offer) {
    for (Map.Entry<TopicPartition, OffsetRange> e : offer.ranges().entrySet()) {
      Long mark = wm.containsKey(e.getKey()) ? wm.get(e.getKey()) : firstOffered.get(e.getKey());
      if (mark == null || e.getValue().from() != mark) {
        return false;
      }
    }
    return true;
  }

  private static long lowestFrom(Offer offer) {
    return offer.ranges().values().stream()
        .mapToLong(OffsetRange::from)
        .min()
        .orElse(Long.MAX_VALUE);
  }

  public Decision decision(String batchId) {
    return decisions.get(batchId);
  }

  public Map<String, Decision> decisions() {
    return decisions;
  }

  public List<String> applied() {
    return decisions.entrySet().stream()
        .filter(e -> e.getValue() == Decision.APPLY)
        .map(Map.Entry::getKey)
        .toList();
  }

  public boolean changesTable() {
    return !applied().isEmpty();
  }

  /** The watermarks the new snapshot records. */
  public Watermarks after() {
    return after;
  }

  /** The watermark of {@code tp} before the plan. */
  public OptionalLong before(TopicPartition tp) {
    return before.of(tp);
  }
}
