package io.streamhouse.connect.commit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;

/**
 * Invariant 1 (contiguity) for one table and one commit: which offered batches go into the next
 * snapshot, which are already in the table, which must be rejected, and the watermarks the
 * snapshot records. Pure: the committer re-plans against the table state inside its atomic
 * commit, so a plan is only as good as the watermarks it was made from.
 */
public final class BatchPlan {
  /** What happens to one batch. */
  public enum Decision { APPLY, ALREADY_PRESENT, REJECT }

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
   * Plans {@code offers} against the table's watermarks {@code current}. Batches are taken in
   * order of their lowest {@code from}; a batch applies only if, for every topic-partition, its
   * {@code from} equals the watermark so far (a missing watermark means the table never saw that
   * partition, so any start is accepted); it is already present if every {@code to} is at or below
   * the watermark; anything else is rejected.
   */
  public static BatchPlan of(Watermarks current, List<Offer> offers) {
    List<Offer> ordered = new ArrayList<>(offers);
    ordered.sort(Comparator.comparingLong(BatchPlan::lowestFrom).thenComparing(Offer::batchId));
    Map<TopicPartition, Long> wm = new HashMap<>(current.asMap());
    Map<String, Decision> decisions = new LinkedHashMap<>();
    for (Offer offer : ordered) {
      Decision decision = decide(wm, offer);
      decisions.put(offer.batchId(), decision);
      if (decision == Decision.APPLY) {
        offer.ranges().forEach((tp, range) -> wm.put(tp, range.to()));
      }
    }
    return new BatchPlan(decisions, current, Watermarks.of(wm));
  }

  private static Decision decide(Map<TopicPartition, Long> wm, Offer offer) {
    boolean allPresent = true;
    boolean allContiguous = true;
    for (Map.Entry<TopicPartition, OffsetRange> e : offer.ranges().entrySet()) {
      Long mark = wm.get(e.getKey());
      OffsetRange range = e.getValue();
      allPresent &= mark != null && range.to() <= mark;
      allContiguous &= mark == null || range.from() == mark;
    }
    if (allPresent && !offer.ranges().isEmpty()) {
      return Decision.ALREADY_PRESENT;
    }
    return allContiguous ? Decision.APPLY : Decision.REJECT;
  }

  private static long lowestFrom(Offer offer) {
    return offer.ranges().values().stream().mapToLong(OffsetRange::from).min().orElse(Long.MAX_VALUE);
  }

  public Decision decision(String batchId) {
    return decisions.get(batchId);
  }

  public Map<String, Decision> decisions() {
    return decisions;
  }

  public List<String> applied() {
    return decisions.entrySet().stream().filter(e -> e.getValue() == Decision.APPLY)
        .map(Map.Entry::getKey).toList();
  }

  public boolean changesTable() {
    return !applied().isEmpty();
  }

  public Watermarks before() {
    return before;
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
