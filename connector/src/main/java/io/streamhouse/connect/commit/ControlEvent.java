package io.streamhouse.connect.commit;

import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.TableId;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** Messages on the control topic: an RPC channel between the tasks and the coordinator. */
public sealed interface ControlEvent {
  String connector();

  long commitId();

  /**
   * Coordinator to tasks: prepare what you have written and offer it for commit {@code commitId}.
   */
  record StartCommit(String connector, long commitId) implements ControlEvent {}

  /** Task to coordinator: one chunk of one prepared batch for one table. */
  record BatchChunk(
      String connector,
      long commitId,
      int taskId,
      String batchId,
      TableId table,
      Map<TopicPartition, OffsetRange> ranges,
      long maxRecordTimestamp,
      int payloadVersion,
      int files,
      long records,
      long bytes,
      int chunk,
      int chunks,
      byte[] data)
      implements ControlEvent {}

  /** Task to coordinator: every batch of this task for {@code commitId} was sent. */
  record TaskDone(String connector, long commitId, int taskId, List<TopicPartition> assigned)
      implements ControlEvent {}

  /**
   * Task to coordinator: the task is losing partitions and has handed in what it wrote as batches;
   * commit them as soon as the task has answered a round, without waiting for the other tasks.
   * {@code commitId} is the last round the task answered.
   */
  record RoundRequest(String connector, long commitId, int taskId) implements ControlEvent {}

  /**
   * Coordinator to task {@code taskId}: run these maintenance jobs of {@code table} (a format's
   * {@link io.streamhouse.connect.protocol.CompactionJob}s, one key each) and offer the result,
   * without offsets, as batch {@code jobId}.
   */
  record CompactRequest(
      String connector,
      long commitId,
      int taskId,
      String jobId,
      TableId table,
      List<CompactionJob> jobs)
      implements ControlEvent {}

  /** Coordinator to tasks: what the commit of {@code table} decided for each offered batch. */
  record TableCommitted(
      String connector, long commitId, TableId table, Map<String, BatchPlan.Decision> decisions)
      implements ControlEvent {}
}
