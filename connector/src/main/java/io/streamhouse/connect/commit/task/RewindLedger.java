package io.streamhouse.connect.commit.task;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;

/**
 * A task's partitions and its rewinds: where each rewound partition must be read again from until a
 * record of that position arrives (Connect applies a seek before its next poll), and how many
 * offsets the task has read again in all. Not thread-safe: {@link Participant} calls it under its
 * lock, except {@link #rewoundOffsets}, which metrics read from any thread.
 */
final class RewindLedger {
  private final Set<TopicPartition> assigned = new HashSet<>();
  private final Map<TopicPartition, Long> rewinds = new HashMap<>();
  private final AtomicLong rewound = new AtomicLong();

  /** A record of {@code tp} arrived: a rewind of it has taken effect. */
  void arrived(TopicPartition tp) {
    if (!rewinds.isEmpty()) {
      rewinds.remove(tp);
    }
  }

  /** Lowers {@code offsets} to the rewinds not yet taken effect. */
  void holdBack(Map<TopicPartition, Long> offsets) {
    rewinds.forEach((tp, offset) -> offsets.merge(tp, offset, Math::min));
  }

  /**
   * Rewinds to {@code rewindTo} (the durable offsets) from {@code consumed}, counts what is read
   * again, and returns the rewinds of assigned partitions with that count.
   */
  Rewind rewind(Map<TopicPartition, Long> rewindTo, Map<TopicPartition, Long> consumed) {
    long count = 0;
    for (Map.Entry<TopicPartition, Long> e : rewindTo.entrySet()) {
      count += Math.max(0, consumed.get(e.getKey()) - e.getValue());
    }
    rewound.addAndGet(count);
    Map<TopicPartition, Long> effective = new HashMap<>(rewindTo);
    effective.keySet().retainAll(assigned);
    rewinds.clear();
    rewinds.putAll(effective);
    return new Rewind(effective, count);
  }

  /** Newly assigned partitions start at Connect's committed offsets, safe by construction. */
  void assigned(Collection<TopicPartition> partitions) {
    assigned.addAll(partitions);
    rewinds.keySet().removeAll(partitions);
  }

  void revoked(Collection<TopicPartition> partitions) {
    assigned.removeAll(partitions);
    rewinds.keySet().removeAll(partitions);
  }

  Set<TopicPartition> assignedPartitions() {
    return Set.copyOf(assigned);
  }

  /** Offsets read again after rewinds, in all. */
  long rewoundOffsets() {
    return rewound.get();
  }
}
