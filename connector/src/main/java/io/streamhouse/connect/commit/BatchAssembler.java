package io.streamhouse.connect.commit;

import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reassembles batches from their chunks; a batch is complete when every chunk arrived. Chunks of
 * one batch must agree on everything but their index and data: a chunk that contradicts the first
 * one seen drops the batch (the task offers it again in the next round).
 */
final class BatchAssembler {
  private static final Logger LOG = LoggerFactory.getLogger(BatchAssembler.class);

  private final Map<String, ControlEvent.BatchChunk[]> partial = new HashMap<>();

  /** The batch, once {@code chunk} completed it. */
  Optional<OfferedBatch> add(ControlEvent.BatchChunk chunk) {
    if (chunk.chunks() < 1
        || chunk.chunks() > ControlEventCodec.MAX_CHUNKS
        || chunk.chunk() < 0
        || chunk.chunk() >= chunk.chunks()) {
      return Optional.empty(); // the codec refuses these; an in-memory channel might not
    }
    ControlEvent.BatchChunk[] chunks =
        partial.computeIfAbsent(chunk.batchId(), id -> new ControlEvent.BatchChunk[chunk.chunks()]);
    ControlEvent.BatchChunk first =
        Arrays.stream(chunks).filter(Objects::nonNull).findFirst().orElse(chunk);
    if (chunks.length != chunk.chunks() || !sameBatch(first, chunk)) {
      partial.remove(chunk.batchId());
      LOG.warn(
          "Chunk {} of batch {} from task {} contradicts the batch's other chunks; the batch is "
              + "dropped until its task offers it again",
          chunk.chunk(),
          chunk.batchId(),
          chunk.taskId());
      return Optional.empty();
    }
    chunks[chunk.chunk()] = chunk;
    for (ControlEvent.BatchChunk c : chunks) {
      if (c == null) {
        return Optional.empty();
      }
    }
    partial.remove(chunk.batchId());
    ByteArrayOutputStream payload = new ByteArrayOutputStream();
    for (ControlEvent.BatchChunk c : chunks) {
      payload.writeBytes(c.data());
    }
    PreparedFiles files =
        new PreparedFiles(
            chunk.payloadVersion(),
            payload.toByteArray(),
            chunk.files(),
            chunk.records(),
            chunk.bytes());
    return Optional.of(
        new OfferedBatch(
            chunk.batchId(), chunk.taskId(), chunk.ranges(), files, chunk.maxRecordTimestamp()));
  }

  private static boolean sameBatch(ControlEvent.BatchChunk a, ControlEvent.BatchChunk b) {
    return a.taskId() == b.taskId()
        && a.table().equals(b.table())
        && a.ranges().equals(b.ranges())
        && a.maxRecordTimestamp() == b.maxRecordTimestamp()
        && a.payloadVersion() == b.payloadVersion()
        && a.files() == b.files()
        && a.records() == b.records()
        && a.bytes() == b.bytes()
        && a.chunks() == b.chunks()
        && a.commitId() == b.commitId();
  }

  /** Forgets incomplete batches: their tasks offer them again, whole, in the next round. */
  void clear() {
    partial.clear();
  }

  /** Forgets the incomplete batches whose id {@code keep} refuses. */
  void retain(Predicate<String> keep) {
    partial.keySet().removeIf(keep.negate());
  }

  /** Cuts a batch into chunks of at most {@link ControlChannel#CHUNK_BYTES} payload bytes. */
  static List<ControlEvent.BatchChunk> split(
      String connector, long commitId, int taskId, TableId table, OfferedBatch batch) {
    byte[] payload = batch.files().payload();
    int chunks =
        Math.max(1, (payload.length + ControlChannel.CHUNK_BYTES - 1) / ControlChannel.CHUNK_BYTES);
    if (chunks > ControlEventCodec.MAX_CHUNKS) {
      throw new IllegalStateException(
          "Connector "
              + connector
              + " task "
              + taskId
              + ": batch "
              + batch.batchId()
              + " of table "
              + table
              + " has "
              + payload.length
              + " bytes of file metadata, more than "
              + ControlEventCodec.MAX_CHUNKS
              + " chunks of "
              + ControlChannel.CHUNK_BYTES
              + " bytes");
    }
    List<ControlEvent.BatchChunk> result = new ArrayList<>(chunks);
    for (int i = 0; i < chunks; i++) {
      int from = i * ControlChannel.CHUNK_BYTES;
      byte[] data =
          Arrays.copyOfRange(
              payload, from, Math.min(payload.length, from + ControlChannel.CHUNK_BYTES));
      result.add(
          new ControlEvent.BatchChunk(
              connector,
              commitId,
              taskId,
              batch.batchId(),
              table,
              batch.ranges(),
              batch.maxRecordTimestamp(),
              batch.files().payloadVersion(),
              batch.files().files(),
              batch.files().records(),
              batch.files().bytes(),
              i,
              chunks,
              data));
    }
    return result;
  }
}
