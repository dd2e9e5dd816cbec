package io.streamhouse.connect.protocol;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * A batch the coordinator received for one table: its id, the task that wrote it, its offset ranges
 * and its files.
 */
public record OfferedBatch(
    String batchId,
    int taskId,
    Map<TopicPartition, OffsetRange> ranges,
    PreparedFiles files,
    long maxRecordTimestamp) {}
