package io.streamhouse.connect.commit.wire;

import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.TransactionCounts;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** Messages on the control topic: an RPC channel between the tasks and the coordinator. */
public sealed interface ControlEvent {
  /**
   * The commit id of a batch announced at a hand-in ({@link
   * io.streamhouse.connect.commit.task.Participant#handIn}): rounds are numbered from their start
   * time, so no coordinator takes it as an offer.
   */
  long NO_ROUND = 0;

  String connector();

  long commitId();

  /**
   * Coordinator to tasks: prepare what you have written and offer it for commit {@code commitId}.
   */
  /**
   * A round's commit request. {@code coordinator}: the sending coordinator's number, larger for a
   * coordinator started later (its start time): tasks answer the latest coordinator only, and an
   * older one that hears a later one stands down (a zombie task 0, frozen past its session and
   * thawed, must not commit beside its successor). {@code released}: with transaction-consistent
   * CDC, the source transactions whose events may be written (in the order of their END events).
   */
  record StartCommit(String connector, long commitId, long coordinator, List<String> released)
      implements ControlEvent {
    public StartCommit(String connector, long commitId, long coordinator) {
      this(connector, commitId, coordinator, List.of());
    }
  }

  /**
   * One piece of prepared files, which may be too large for one event: piece {@code chunk} of
   * {@code chunks} of what {@link #id} names, reassembled by {@link ChunkAssembler}. All pieces
   * agree on everything but {@code chunk} and {@code data}.
   */
  sealed interface Chunk extends ControlEvent {
    int taskId();

    /** The batch or compaction job the piece belongs to. */
    String id();

    TableId table();

    int payloadVersion();

    int files();

    long records();

    long bytes();

    int chunk();

    int chunks();

    byte[] data();
  }

  /**
   * Task to coordinator: one chunk of one prepared batch for one table; every chunk carries the
   * batch's {@code transactions}.
   */
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
      byte[] data,
      TransactionCounts transactions)
      implements Chunk {
    @Override
    public String id() {
      return batchId;
    }
  }

  /**
   * Task to coordinator: one chunk of the result of compaction job {@code jobId} of {@code table},
   * sent as soon as the task ran the job; {@code commitId} is the round that handed the job out. It
   * holds no records of Kafka, so no offsets.
   */
  record CompactionResultChunk(
      String connector,
      long commitId,
      int taskId,
      String jobId,
      TableId table,
      int payloadVersion,
      int files,
      long records,
      long bytes,
      int chunk,
      int chunks,
      byte[] data)
      implements Chunk {
    @Override
    public String id() {
      return jobId;
    }
  }

  /**
   * Task to coordinator: every batch of this task for {@code commitId} was sent. {@code heldEnds}:
   * with transaction-consistent CDC, the source transactions whose END events the task read and
   * holds until they are released, in their order.
   */
  record TaskDone(
      String connector,
      long commitId,
      int taskId,
      List<TopicPartition> assigned,
      List<String> heldEnds)
      implements ControlEvent {}

  /**
   * Task to coordinator: the task is losing partitions and has handed in what it wrote as batches;
   * commit them as soon as the task has answered a round, without waiting for the other tasks.
   * {@code commitId} is the last round the task answered.
   */
  record RoundRequest(String connector, long commitId, int taskId) implements ControlEvent {}

  /**
   * Coordinator to task {@code taskId}: run these compaction jobs of {@code table} (a format's
   * {@link CompactionJob}s, one key each) and send the result as {@link CompactionResultChunk}s of
   * {@code jobId}.
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
