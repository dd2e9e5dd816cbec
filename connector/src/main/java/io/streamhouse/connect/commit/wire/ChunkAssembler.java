package io.streamhouse.connect.commit.wire;

import io.streamhouse.connect.protocol.CompactionResult;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts prepared files into chunks ({@link ControlEvent.Chunk}: a task's batch, or the result of a
 * compaction job) and reassembles them on the coordinator; what they make is complete when every
 * chunk arrived. Chunks of one id must agree on everything but their index and data: a chunk that
 * contradicts the first one seen drops what was gathered.
 *
 * @param <C> the kind of chunk
 * @param <R> what its chunks make
 */
public final class ChunkAssembler<C extends ControlEvent.Chunk, R> {
  private static final Logger LOG = LoggerFactory.getLogger(ChunkAssembler.class);

  private final String kind;
  private final String whenDropped;
  private final BiPredicate<C, C> sameKindFields;
  private final BiFunction<C, PreparedFiles, R> whole;
  private final Map<String, List<C>> partial = new HashMap<>();

  private ChunkAssembler(
      String kind,
      String whenDropped,
      BiPredicate<C, C> sameKindFields,
      BiFunction<C, PreparedFiles, R> whole) {
    this.kind = kind;
    this.whenDropped = whenDropped;
    this.sameKindFields = sameKindFields;
    this.whole = whole;
  }

  /** Batches of a round: their chunks also agree on the offset ranges and the newest timestamp. */
  public static ChunkAssembler<ControlEvent.BatchChunk, OfferedBatch> batches() {
    return new ChunkAssembler<>(
        "batch",
        "the batch is dropped until its task offers it again",
        (a, b) ->
            a.ranges().equals(b.ranges())
                && a.maxRecordTimestamp() == b.maxRecordTimestamp()
                && a.transactions().equals(b.transactions()),
        (c, files) ->
            new OfferedBatch(
                c.batchId(),
                c.taskId(),
                c.ranges(),
                files,
                c.maxRecordTimestamp(),
                c.transactions()));
  }

  /** Results of compaction jobs. */
  public static ChunkAssembler<ControlEvent.CompactionResultChunk, CompactionResult>
      compactionResults() {
    return new ChunkAssembler<>(
        "compaction result",
        "the result is dropped and its job goes out again after its timeout",
        (a, b) -> true,
        (c, files) -> new CompactionResult(c.jobId(), c.taskId(), files));
  }

  /** What {@code chunk}'s id names, once {@code chunk} completed it. */
  public Optional<R> add(C chunk) {
    if (chunk.chunks() < 1
        || chunk.chunks() > ControlEventCodec.MAX_CHUNKS
        || chunk.chunk() < 0
        || chunk.chunk() >= chunk.chunks()) {
      return Optional.empty(); // the codec refuses these; an in-memory channel might not
    }
    List<C> chunks =
        partial.computeIfAbsent(
            chunk.id(), id -> new ArrayList<>(Collections.nCopies(chunk.chunks(), null)));
    C first = chunks.stream().filter(Objects::nonNull).findFirst().orElse(chunk);
    if (chunks.size() != chunk.chunks() || !samePieces(first, chunk)) {
      partial.remove(chunk.id());
      LOG.warn(
          "Chunk {} of {} {} from task {} contradicts its other chunks; {}",
          chunk.chunk(),
          kind,
          chunk.id(),
          chunk.taskId(),
          whenDropped);
      return Optional.empty();
    }
    chunks.set(chunk.chunk(), chunk);
    if (chunks.contains(null)) {
      return Optional.empty();
    }
    partial.remove(chunk.id());
    ByteArrayOutputStream payload = new ByteArrayOutputStream();
    for (C c : chunks) {
      payload.writeBytes(c.data());
    }
    return Optional.of(
        whole.apply(
            chunk,
            new PreparedFiles(
                chunk.payloadVersion(),
                payload.toByteArray(),
                chunk.files(),
                chunk.records(),
                chunk.bytes())));
  }

  private boolean samePieces(C a, C b) {
    return a.taskId() == b.taskId()
        && a.table().equals(b.table())
        && a.payloadVersion() == b.payloadVersion()
        && a.files() == b.files()
        && a.records() == b.records()
        && a.bytes() == b.bytes()
        && a.chunks() == b.chunks()
        && a.commitId() == b.commitId()
        && sameKindFields.test(a, b);
  }

  /** Forgets everything incomplete. */
  public void clear() {
    partial.clear();
  }

  /** Forgets the incomplete ones whose id {@code keep} refuses. */
  public void retain(Predicate<String> keep) {
    partial.keySet().removeIf(keep.negate());
  }

  /** Cuts a batch into chunks of at most {@link ControlChannel#CHUNK_BYTES} payload bytes. */
  public static List<ControlEvent.BatchChunk> split(
      String connector, long commitId, int taskId, TableId table, OfferedBatch batch) {
    PreparedFiles files = batch.files();
    return cut(
        connector,
        taskId,
        "batch " + batch.batchId(),
        table,
        files.payload(),
        (i, n, data) ->
            new ControlEvent.BatchChunk(
                connector,
                commitId,
                taskId,
                batch.batchId(),
                table,
                batch.ranges(),
                batch.maxRecordTimestamp(),
                files.payloadVersion(),
                files.files(),
                files.records(),
                files.bytes(),
                i,
                n,
                data,
                batch.transactions()));
  }

  /**
   * Cuts the result of a compaction job handed out in round {@code commitId} into chunks of at most
   * {@link ControlChannel#CHUNK_BYTES} payload bytes.
   */
  public static List<ControlEvent.CompactionResultChunk> split(
      String connector, long commitId, TableId table, CompactionResult result) {
    PreparedFiles files = result.files();
    return cut(
        connector,
        result.taskId(),
        "compaction result " + result.jobId(),
        table,
        files.payload(),
        (i, n, data) ->
            new ControlEvent.CompactionResultChunk(
                connector,
                commitId,
                result.taskId(),
                result.jobId(),
                table,
                files.payloadVersion(),
                files.files(),
                files.records(),
                files.bytes(),
                i,
                n,
                data));
  }

  /** Makes chunk {@code index} of {@code count} around its part of the payload. */
  @FunctionalInterface
  private interface Piece<C> {
    C make(int index, int count, byte[] data);
  }

  private static <C> List<C> cut(
      String connector, int taskId, String what, TableId table, byte[] payload, Piece<C> piece) {
    int chunks =
        Math.max(1, (payload.length + ControlChannel.CHUNK_BYTES - 1) / ControlChannel.CHUNK_BYTES);
    if (chunks > ControlEventCodec.MAX_CHUNKS) {
      throw new IllegalStateException(
          "Connector "
              + connector
              + " task "
              + taskId
              + ": "
              + what
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
    List<C> result = new ArrayList<>(chunks);
    for (int i = 0; i < chunks; i++) {
      int from = i * ControlChannel.CHUNK_BYTES;
      result.add(
          piece.make(
              i,
              chunks,
              Arrays.copyOfRange(
                  payload, from, Math.min(payload.length, from + ControlChannel.CHUNK_BYTES))));
    }
    return result;
  }
}
