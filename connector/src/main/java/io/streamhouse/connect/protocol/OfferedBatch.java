package io.streamhouse.connect.protocol;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * A batch the coordinator received for one table: its id, the task that wrote it, its offset ranges
 * and its files, and what it holds of source transactions (none unless transaction-consistent).
 */
public record OfferedBatch(
    String batchId,
    int taskId,
    Map<TopicPartition, OffsetRange> ranges,
    PreparedFiles files,
    long maxRecordTimestamp,
    TransactionCounts transactions) {
  /** A batch that holds no count of source transactions. */
  public OfferedBatch(
      String batchId,
      int taskId,
      Map<TopicPartition, OffsetRange> ranges,
      PreparedFiles files,
      long maxRecordTimestamp) {
    this(batchId, taskId, ranges, files, maxRecordTimestamp, TransactionCounts.NONE);
  }
}
