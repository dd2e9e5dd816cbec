package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.TableFormat;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * Where each table continues per partition for a task: after what the task offered, else the
 * table's watermark (invariant <em>skip-what-the-table-has</em>, docs/architecture.md), raised to
 * the ends of other tasks' undecided batches the task reads on after. Not thread-safe: {@link
 * TableWriters} calls it owning the task state.
 */
final class TablePositions {
  /** No position known for a table and partition. */
  static final long NO_POSITION = -1;

  private final Map<String, TableFormat> formats;

  private final Map<TableId, Map<TopicPartition, Long>> positions = new HashMap<>();

  /** Per table, partitions whose position is read from its watermarks again when next needed. */
  private final Map<TableId, Set<TopicPartition>> forgotten = new HashMap<>();

  /**
   * Per table, where another task's undecided batches that this task reads on after end, per
   * partition: a position read from the watermarks is raised to them ({@link #adopt}).
   */
  private final Map<TableId, Map<TopicPartition, Long>> adoptedEnds = new HashMap<>();

  TablePositions(Map<String, TableFormat> formats) {
    this.formats = formats;
  }

  /**
   * Where table {@code id} continues for {@code tp}: after what this task offered, or its
   * watermark.
   */
  OptionalLong position(TableId id, TopicPartition tp) {
    long p = positionOrNone(id, tp);
    return p == NO_POSITION ? OptionalLong.empty() : OptionalLong.of(p);
  }

  /** {@link #position}, or {@link #NO_POSITION} (offsets are never negative). */
  long positionOrNone(TableId id, TopicPartition tp) {
    Map<TopicPartition, Long> known = positions.get(id);
    if (known == null) {
      known = new HashMap<>(formats.get(id.catalog()).watermarks(id).asMap());
      raiseToAdopted(id, known);
      positions.put(id, known);
      forgotten.remove(id);
    } else if (!forgotten.isEmpty() && forgotten.containsKey(id)) {
      Map<TopicPartition, Long> watermarks = formats.get(id.catalog()).watermarks(id).asMap();
      Map<TopicPartition, Long> ends = adoptedEnds.getOrDefault(id, Map.of());
      for (TopicPartition again : forgotten.remove(id)) {
        Long watermark = watermarks.get(again);
        Long end = ends.get(again);
        if (watermark == null && end == null) {
          known.remove(again);
        } else {
          known.put(again, Math.max(watermark == null ? 0 : watermark, end == null ? 0 : end));
        }
      }
    }
    Long p = known.get(tp);
    return p == null ? NO_POSITION : p;
  }

  /** Raises the positions {@code known} of table {@code id} to the batches read on after. */
  private void raiseToAdopted(TableId id, Map<TopicPartition, Long> known) {
    Map<TopicPartition, Long> ends = adoptedEnds.get(id);
    if (ends != null) {
      ends.forEach((tp, end) -> known.merge(tp, end, Math::max));
    }
  }

  /**
   * Table {@code id} continues for {@code tp} at {@code end} at the least: another task's batch,
   * undecided, ends there, and this task reads on after it (docs/architecture.md, "Reading on after
   * a hand-in"). Its own batches then start there; should that batch not commit, they are rejected
   * and the task starts over ({@link TableWriters#abortAll}).
   */
  void adopt(TableId id, TopicPartition tp, long end) {
    adoptedEnds.computeIfAbsent(id, t -> new HashMap<>()).merge(tp, end, Math::max);
    if (positions.containsKey(id)) {
      forgotten.computeIfAbsent(id, t -> new HashSet<>()).add(tp);
    }
  }

  /** {@code partitions} left the task: the batches read on after no longer concern them. */
  void dropAdopted(Collection<TopicPartition> partitions) {
    adoptedEnds.values().forEach(ends -> ends.keySet().removeAll(partitions));
    adoptedEnds.values().removeIf(Map::isEmpty);
  }

  /**
   * Forgets where each table continues for {@code partitions} (after batches this task offered):
   * another task may have committed them since; the watermarks tell, read when next needed.
   */
  void forget(Collection<TopicPartition> partitions) {
    for (TableId id : positions.keySet()) {
      forgotten.computeIfAbsent(id, t -> new HashSet<>()).addAll(partitions);
    }
  }

  /** The task offered table {@code id}'s records of {@code tp} below {@code next}. */
  void offered(TableId id, TopicPartition tp, long next) {
    positions.computeIfAbsent(id, t -> new HashMap<>()).put(tp, next);
  }

  /** Forgets every position: the task starts over. */
  void clear() {
    positions.clear();
    forgotten.clear();
    adoptedEnds.clear();
  }
}
