package io.streamhouse.connect.commit;

import io.streamhouse.connect.table.OfferedBatch;
import io.streamhouse.connect.table.PreparedFiles;
import java.io.ByteArrayOutputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** Reassembles batches from their chunks; a batch is complete when every chunk arrived. */
final class BatchAssembler {
  private final Map<String, ControlEvent.BatchChunk[]> partial = new HashMap<>();

  /** The batch, once {@code chunk} completed it. */
  Optional<OfferedBatch> add(ControlEvent.BatchChunk chunk) {
    ControlEvent.BatchChunk[] chunks = partial.computeIfAbsent(chunk.batchId(),
        id -> new ControlEvent.BatchChunk[chunk.chunks()]);
    if (chunks.length != chunk.chunks() || chunk.chunk() >= chunks.length) {
      partial.remove(chunk.batchId());
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
    PreparedFiles files = new PreparedFiles(chunk.payloadVersion(), payload.toByteArray(), chunk.files(),
        chunk.records(), chunk.bytes());
    return Optional.of(new OfferedBatch(chunk.batchId(), chunk.ranges(), files, chunk.maxRecordTimestamp()));
  }

  /** Cuts a batch into chunks of at most {@link ControlChannel#CHUNK_BYTES} payload bytes. */
  static java.util.List<ControlEvent.BatchChunk> split(String connector, long commitId, int taskId,
      io.streamhouse.connect.table.TableId table, OfferedBatch batch) {
    byte[] payload = batch.files().payload();
    int chunks = Math.max(1, (payload.length + ControlChannel.CHUNK_BYTES - 1) / ControlChannel.CHUNK_BYTES);
    java.util.List<ControlEvent.BatchChunk> result = new java.util.ArrayList<>(chunks);
    for (int i = 0; i < chunks; i++) {
      int from = i * ControlChannel.CHUNK_BYTES;
      byte[] data = java.util.Arrays.copyOfRange(payload, from, Math.min(payload.length, from + ControlChannel.CHUNK_BYTES));
      result.add(new ControlEvent.BatchChunk(connector, commitId, taskId, batch.batchId(), table, batch.ranges(),
          batch.maxRecordTimestamp(), batch.files().payloadVersion(), batch.files().files(),
          batch.files().records(), batch.files().bytes(), i, chunks, data));
    }
    return result;
  }
}
