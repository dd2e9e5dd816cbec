package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.TransactionCounts;
import io.streamhouse.connect.table.DetachedFiles;
import io.streamhouse.connect.table.TableFormat;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's batches between its writers and the coordinator's decision: <em>preparing</em> (files
 * taken out of the writers, being closed) and <em>pending</em> (closed and offered, offered again
 * in every round until decided). Both hold their offsets back (invariant <em>durable-offsets</em>).
 * A reset clears them and starts a new generation: batches taken out before it are void. Not
 * thread-safe: only the thread that owns the task state ({@link TaskState}) calls it.
 */
final class InFlightBatches {
  private static final Logger LOG = LoggerFactory.getLogger(InFlightBatches.class);

  /** A batch offered to the coordinator and not yet decided. */
  record Pending(TableId table, OfferedBatch batch) {}

  /** A batch whose files are being closed, to be offered next. */
  record Preparing(
      TableId table,
      String batchId,
      Map<TopicPartition, OffsetRange> ranges,
      long maxTimestamp,
      DetachedFiles files,
      TransactionCounts transactions) {}

  private final String connector;
  private final int taskId;
  private final Map<String, TableFormat> formats;
  private final Map<String, Pending> pending = new LinkedHashMap<>();
  private final Map<String, Preparing> preparing = new LinkedHashMap<>();
  private final TransactionTally tally = new TransactionTally();

  /**
   * Each batch in flight's place in the order it was cut: batches close in any order (a cut ahead
   * of its request can close after a hand-over's), and are offered in the order they were cut.
   */
  private final Map<String, Long> cutOrder = new HashMap<>();

  private long cuts;
  private long generation;

  InFlightBatches(String connector, int taskId, Map<String, TableFormat> formats) {
    this.connector = connector;
    this.taskId = taskId;
    this.formats = formats;
  }

  /** Takes the files and offset ranges out of {@code detached} writers: they are preparing. */
  List<Preparing> preparing(List<TableWriters.Detached> detached) {
    List<Preparing> batches = new ArrayList<>(detached.size());
    for (TableWriters.Detached d : detached) {
      Preparing p =
          new Preparing(
              d.table(),
              connector + "-" + taskId + "-" + UUID.randomUUID(),
              d.ranges(),
              d.maxTimestamp(),
              d.files(),
              tally.take(d.table()));
      preparing.put(p.batchId(), p);
      cutOrder.put(p.batchId(), cuts++);
      batches.add(p);
    }
    return batches;
  }

  /** {@code batch}'s files are closed: it is pending, offered in every round until decided. */
  Pending closed(Preparing batch, PreparedFiles files) {
    preparing.remove(batch.batchId());
    Pending p =
        new Pending(
            batch.table(),
            new OfferedBatch(
                batch.batchId(),
                taskId,
                batch.ranges(),
                files,
                batch.maxTimestamp(),
                batch.transactions()));
    pending.put(batch.batchId(), p);
    return p;
  }

  /**
   * The pending batches that no batch still preparing precedes. A batch is offered, or committed by
   * the task itself, only after every earlier batch of its partitions: for a partition the table
   * never saw, the first batch committed sets where it starts, and an earlier batch committed later
   * would be taken as already present and its records lost.
   */
  List<Pending> offerable() {
    Map<TopicPartition, Long> preparingFrom = new HashMap<>();
    for (Preparing p : preparing.values()) {
      p.ranges().forEach((tp, r) -> preparingFrom.merge(tp, r.from(), Math::min));
    }
    List<Pending> offerable = new ArrayList<>(pending.size());
    for (Pending p : pending.values()) {
      boolean preceded =
          p.batch().ranges().entrySet().stream()
              .anyMatch(
                  e -> {
                    Long before = preparingFrom.get(e.getKey());
                    return before != null && before < e.getValue().from();
                  });
      if (!preceded) {
        offerable.add(p);
      }
    }
    // In the order they were cut: a coordinator that commits what arrived of an answer (the
    // hand-over's early commit, a timeout) must never get a later batch of a partition without
    // the earlier one. For a partition a table never saw, the first batch committed sets where it
    // starts, and the earlier one would then be taken as already present: its records lost.
    offerable.sort(Comparator.comparingLong(p -> cutOrder.get(p.batch().batchId())));
    return offerable;
  }

  /**
   * The coordinator decided batch {@code batchId}: an applied or already present batch is done (its
   * offsets are durable). True when the batch was this task's and was rejected, or was already
   * present while its writer counts on its files (a keyed table's key index holds their rows, which
   * are in no snapshot): the task must start over from its durable offsets.
   */
  boolean decided(String batchId, BatchPlan.Decision decision) {
    Pending p = pending.get(batchId);
    if (p == null) {
      return false;
    }
    if (decision == BatchPlan.Decision.REJECT) {
      LOG.warn(
          "Table {} rejected batch {} {}: its offsets do not follow the "
              + "table's watermarks; rewinding to the last durable offsets",
          p.table(),
          batchId,
          p.batch().ranges());
      return true;
    }
    pending.remove(batchId);
    cutOrder.remove(batchId);
    if (decision == BatchPlan.Decision.ALREADY_PRESENT
        && p.batch().taskId() == taskId
        && formats.get(p.table().catalog()).writerCountsOn(p.batch().files())) {
      LOG.warn(
          "Table {}: the offsets of batch {} {} are in the table already (another writer's commit,"
              + " or its own whose answer was lost); the task reads its key index again",
          p.table(),
          batchId,
          p.batch().ranges());
      // Its files are not deleted: the batch itself may be what the table holds (a commit whose
      // answer was lost); if not, orphan cleanup removes them.
      return true;
    }
    return false;
  }

  /**
   * Another task's batch, handed in and undecided, that this task reads on after: pending here like
   * one of its own, offered in every round until decided and ahead of every batch cut later (the
   * tables it adds to may never have seen its partitions). False if it is here already.
   */
  boolean adopt(TableId table, OfferedBatch batch) {
    if (holds(batch.batchId())) {
      return false;
    }
    pending.put(batch.batchId(), new Pending(table, batch));
    cutOrder.put(batch.batchId(), cuts++);
    return true;
  }

  /** Whether {@code batchId} names a batch of this task preparing or pending. */
  boolean holds(String batchId) {
    return pending.containsKey(batchId) || preparing.containsKey(batchId);
  }

  /** Whether a batch preparing or pending covers {@code tp}. */
  boolean covers(TopicPartition tp) {
    for (Pending p : pending.values()) {
      if (p.batch().ranges().containsKey(tp)) {
        return true;
      }
    }
    for (Preparing p : preparing.values()) {
      if (p.ranges().containsKey(tp)) {
        return true;
      }
    }
    return false;
  }

  /** True when nothing is preparing or pending. */
  boolean isEmpty() {
    return pending.isEmpty() && preparing.isEmpty();
  }

  /** Batches whose files are still being closed. */
  int preparingCount() {
    return preparing.size();
  }

  int size() {
    return pending.size() + preparing.size();
  }

  /** The batches taken out since a reset; a batch taken out earlier is void. */
  long generation() {
    return generation;
  }

  /** Lowers {@code offsets} to the first offset each batch in flight holds. */
  void holdBack(Map<TopicPartition, Long> offsets) {
    for (Pending p : pending.values()) {
      p.batch().ranges().forEach((tp, r) -> offsets.merge(tp, r.from(), Math::min));
    }
    for (Preparing p : preparing.values()) {
      p.ranges().forEach((tp, r) -> offsets.merge(tp, r.from(), Math::min));
    }
  }

  /** The source transactions of what was written since the last cut, per table. */
  TransactionTally tally() {
    return tally;
  }

  /** Forgets every batch: the task starts over from its durable offsets. */
  void clear() {
    tally.clear();
    pending.clear();
    preparing.clear();
    cutOrder.clear();
    generation++;
  }

  /**
   * Deletes the files of a batch that is never offered (best effort: they are not in any snapshot).
   */
  void discard(Preparing batch, PreparedFiles files) {
    try {
      formats.get(batch.table().catalog()).discard(batch.table(), List.of(files));
    } catch (RuntimeException e) {
      LOG.warn(
          "Could not delete the uncommitted files of batch {} of table {}: {}",
          batch.batchId(),
          batch.table(),
          e.toString());
    }
  }
}
