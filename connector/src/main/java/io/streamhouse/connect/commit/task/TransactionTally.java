package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.TransactionCounts;
import java.util.HashMap;
import java.util.Map;

/**
 * What the records a task wrote since the last cut hold of source transactions, per table
 * (transaction-consistent CDC): the events of each transaction per topic, and the END events
 * written to the transactions table. A cut moves a table's counts into its batch ({@link
 * InFlightBatches#preparing}), so that they travel with the batch's files; a reset drops them with
 * the writers. Only the thread that owns the task state calls it.
 */
public final class TransactionTally {
  private record Counts(Map<String, Map<String, Long>> seen, Map<String, Map<String, Long>> ends) {
    Counts() {
      this(new HashMap<>(), new HashMap<>());
    }
  }

  private final Map<TableId, Counts> byTable = new HashMap<>();

  /** An event of transaction {@code id} from {@code topic}, written first to {@code table}. */
  public void seen(TableId table, String id, String topic) {
    byTable
        .computeIfAbsent(table, t -> new Counts())
        .seen()
        .computeIfAbsent(id, i -> new HashMap<>())
        .merge(topic, 1L, Long::sum);
  }

  /**
   * The END event of transaction {@code id}, counting {@code events} per topic, in {@code table}.
   */
  public void ended(TableId table, String id, Map<String, Long> events) {
    byTable.computeIfAbsent(table, t -> new Counts()).ends().put(id, Map.copyOf(events));
  }

  /** The counts of {@code table} since the last cut, which the cut's batch now carries. */
  public TransactionCounts take(TableId table) {
    Counts counts = byTable.remove(table);
    return counts == null
        ? TransactionCounts.NONE
        : new TransactionCounts(counts.seen(), counts.ends());
  }

  /** The writers were aborted: their records are read again and counted again. */
  void clear() {
    byTable.clear();
  }
}
