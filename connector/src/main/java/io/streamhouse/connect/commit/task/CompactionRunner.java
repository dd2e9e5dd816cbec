package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.ConnectorThreads;
import io.streamhouse.connect.commit.wire.ChunkAssembler;
import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.CompactionResult;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.table.TableFormat;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the compaction jobs the coordinator hands to this task, one request at a time on a thread of
 * its own (neither the task's put thread nor its control thread waits for a compaction), and sends
 * each result to the coordinator as soon as it is ready ({@link
 * ControlEvent.CompactionResultChunk}s; the coordinator commits it between rounds). A job that
 * fails is logged; the coordinator hands its buckets out again after its timeout.
 */
public final class CompactionRunner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CompactionRunner.class);

  private final String connector;
  private final int taskId;
  private final Map<String, TableFormat> formats;
  private final ControlChannel channel;
  private final ExecutorService thread;

  public CompactionRunner(
      String connector, int taskId, Map<String, TableFormat> formats, ControlChannel channel) {
    this.connector = connector;
    this.taskId = taskId;
    this.formats = formats;
    this.channel = channel;
    this.thread =
        Executors.newSingleThreadExecutor(
            ConnectorThreads.factory(
                "streamhouse-compaction-" + connector.replace("%", "%%") + "-" + taskId));
  }

  /** Queues {@code request} if it is for this task and a table format of this connector. */
  public void submit(ControlEvent.CompactRequest request) {
    if (request.taskId() != taskId) {
      return;
    }
    TableFormat format = formats.get(request.table().catalog());
    if (format == null) {
      LOG.warn(
          "Compaction job {} names catalog {}, which the connector does not have",
          request.jobId(),
          request.table().catalog());
      return;
    }
    try {
      thread.execute(() -> run(format, request));
    } catch (RejectedExecutionException stopping) {
      // the task is stopping: the coordinator hands the job out again
    }
  }

  private void run(TableFormat format, ControlEvent.CompactRequest request) {
    try {
      PreparedFiles files = format.compact(request.table(), request.jobs());
      // The channel is safe for concurrent senders, and the task writes on meanwhile.
      channel.send(
          ChunkAssembler.split(
              connector,
              request.commitId(),
              request.table(),
              new CompactionResult(request.jobId(), taskId, files)));
    } catch (RuntimeException e) {
      LOG.warn(
          "Compaction job {} ({} buckets of {}) failed; the coordinator hands its "
              + "buckets out again: {}",
          request.jobId(),
          request.jobs().size(),
          request.table(),
          e.toString());
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
