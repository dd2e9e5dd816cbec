package io.streamhouse.connect.commit.wire;

import io.streamhouse.connect.commit.wire.InvalidControlEventException.Reason;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.TransactionCounts;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * Binary encoding of one connector's control events: a format version, the connector's name, a type
 * tag, the fields, then an HMAC-SHA256 of everything before it under the connector's key.
 *
 * <p>Decoding treats the bytes as hostile: events of other connectors (a shared control topic) are
 * passed over unread; for this connector's, the size, the version and the MAC are checked before
 * any field is read, every count and length is bounded by the bytes that remain, and every value is
 * range-checked. Whatever is wrong ends in an {@link InvalidControlEventException}.
 *
 * <p>The parts several events share (a table, a topic-partition, a chunk's head and end) are laid
 * out by {@link ControlEventParts}.
 */
public final class ControlEventCodec {
  static final int VERSION = 3;

  /**
   * No event this plugin sends comes near it: a chunk's payload is at most {@link
   * ControlChannel#CHUNK_BYTES}.
   */
  static final int MAX_EVENT_BYTES = 4 * ControlChannel.CHUNK_BYTES;

  /**
   * Chunks of one batch or compaction result: 256 x 512 KiB = 128 MiB of file metadata, far above
   * any real one.
   */
  static final int MAX_CHUNKS = 256;

  static final int MAX_NAME_BYTES = 1024;

  private static final int MAX_ENTRIES = 1_000_000;
  private static final byte START = 1;
  private static final byte CHUNK = 2;
  private static final byte DONE = 3;
  private static final byte COMMITTED = 4;
  private static final byte REQUEST = 5;
  private static final byte COMPACT = 6;
  private static final byte RESULT = 7;

  /** Jobs in one compaction request; the coordinator sends more requests for more. */
  public static final int MAX_JOBS = 4_096;

  private static final int MAX_JOB_SPEC_BYTES = 128 * 1024;
  private static final BatchPlan.Decision[] DECISIONS = BatchPlan.Decision.values();

  private final String connector;
  private final byte[] connectorBytes;
  private final ControlEventSigner signer;

  public ControlEventCodec(String connector, ControlEventSigner signer) {
    this.connector = connector;
    this.connectorBytes = connector.getBytes(StandardCharsets.UTF_8);
    this.signer = signer;
  }

  /** The signed bytes of {@code event}, which must be this connector's. */
  public byte[] encode(ControlEvent event) {
    if (!event.connector().equals(connector)) {
      throw new IllegalArgumentException(
          "Event of connector " + event.connector() + " given to the codec of " + connector);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeUTF(connector);
      if (event instanceof ControlEvent.StartCommit e) {
        out.writeByte(START);
        out.writeLong(e.commitId());
        out.writeLong(e.coordinator());
        if (!e.released().isEmpty()) {
          TransactionWire.writeIds(out, e.released());
        }
      } else if (event instanceof ControlEvent.BatchChunk e) {
        out.writeByte(CHUNK);
        out.writeLong(e.commitId());
        writeBatchChunk(out, e);
      } else if (event instanceof ControlEvent.CompactionResultChunk e) {
        out.writeByte(RESULT);
        out.writeLong(e.commitId());
        ControlEventParts.writeChunkHead(out, e);
        ControlEventParts.writeChunkFiles(out, e);
      } else if (event instanceof ControlEvent.TaskDone e) {
        out.writeByte(DONE);
        out.writeLong(e.commitId());
        out.writeInt(e.taskId());
        out.writeInt(e.assigned().size());
        for (TopicPartition tp : e.assigned()) {
          ControlEventParts.writeTopicPartition(out, tp);
        }
        if (!e.heldEnds().isEmpty()) {
          TransactionWire.writeIds(out, e.heldEnds());
        }
      } else if (event instanceof ControlEvent.RoundRequest e) {
        out.writeByte(REQUEST);
        out.writeLong(e.commitId());
        out.writeInt(e.taskId());
      } else if (event instanceof ControlEvent.CompactRequest e) {
        out.writeByte(COMPACT);
        out.writeLong(e.commitId());
        out.writeInt(e.taskId());
        out.writeUTF(e.jobId());
        ControlEventParts.writeTable(out, e.table());
        out.writeInt(e.jobs().size());
        for (CompactionJob job : e.jobs()) {
          out.writeUTF(job.key());
          out.writeInt(job.spec().length);
          out.write(job.spec());
        }
      } else if (event instanceof ControlEvent.TableCommitted e) {
        out.writeByte(COMMITTED);
        out.writeLong(e.commitId());
        ControlEventParts.writeTable(out, e.table());
        out.writeInt(e.decisions().size());
        for (Map.Entry<String, BatchPlan.Decision> d : e.decisions().entrySet()) {
          out.writeUTF(d.getKey());
          out.writeByte(d.getValue().ordinal());
        }
      }
      out.flush();
      out.write(signer.sign(bytes.toByteArray(), bytes.size()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static void writeBatchChunk(DataOutputStream out, ControlEvent.BatchChunk e)
      throws IOException {
    ControlEventParts.writeChunkHead(out, e);
    out.writeInt(e.ranges().size());
    for (Map.Entry<TopicPartition, OffsetRange> r : e.ranges().entrySet()) {
      ControlEventParts.writeTopicPartition(out, r.getKey());
      out.writeLong(r.getValue().from());
      out.writeLong(r.getValue().to());
    }
    out.writeLong(e.maxRecordTimestamp());
    ControlEventParts.writeChunkFiles(out, e);
    if (!e.transactions().isEmpty()) {
      TransactionWire.writeCounts(out, e.transactions());
    }
  }

  /**
   * The event, empty if it belongs to another connector.
   *
   * @throws InvalidControlEventException if it is this connector's (or claims to be) and is refused
   */
  public Optional<ControlEvent> decode(byte[] data) throws InvalidControlEventException {
    if (data == null || data.length < 1 + 2 + 1 + 8 + ControlEventSigner.MAC_BYTES) {
      throw new InvalidControlEventException(
          Reason.TRUNCATED,
          "an event of "
              + (data == null ? "no" : Integer.toString(data.length))
              + " bytes is shorter than any control event");
    }
    if (data.length > MAX_EVENT_BYTES) {
      throw new InvalidControlEventException(
          Reason.OVERSIZED,
          "an event of "
              + data.length
              + " bytes is larger than any control event ("
              + MAX_EVENT_BYTES
              + ")");
    }
    int version = data[0] & 0xff;
    if (version != VERSION) {
      throw new InvalidControlEventException(
          Reason.UNKNOWN_VERSION,
          "control event version "
              + version
              + " is not supported (this plugin reads version "
              + VERSION
              + ")");
    }
    if (!isOurs(data)) {
      return Optional.empty();
    }
    if (!signer.verify(data)) {
      throw new InvalidControlEventException(
          Reason.BAD_SIGNATURE,
          "the event's MAC does not match the "
              + "connector's key: it was not sent by a task of connector "
              + connector
              + " (or under an older key)");
    }
    WireReader in =
        new WireReader(
            data, 1 + 2 + connectorBytes.length, data.length - ControlEventSigner.MAC_BYTES);
    int type = in.readUnsignedByte("type");
    long commitId = in.readLong("commit id", 0, Long.MAX_VALUE);
    ControlEvent event =
        switch (type) {
          case START ->
              new ControlEvent.StartCommit(
                  connector,
                  commitId,
                  in.readLong("coordinator", 0, Long.MAX_VALUE),
                  in.remaining() > 0 ? TransactionWire.readIds(in, "released") : List.of());
          case CHUNK -> readBatchChunk(in, commitId);
          case RESULT -> readCompactionResultChunk(in, commitId);
          case DONE -> readTaskDone(in, commitId);
          case COMMITTED -> readTableCommitted(in, commitId);
          case REQUEST ->
              new ControlEvent.RoundRequest(
                  connector, commitId, in.readInt("task id", 0, Integer.MAX_VALUE));
          case COMPACT -> readCompactRequest(in, commitId);
          default -> throw WireReader.malformed("unknown event type " + type);
        };
    in.requireEnd("the event");
    return Optional.of(event);
  }

  /** Whether the name after the version is this connector's, compared as bytes without decoding. */
  private boolean isOurs(byte[] data) {
    int length = ((data[1] & 0xff) << 8) | (data[2] & 0xff);
    return length == connectorBytes.length
        && 3 + length <= data.length
        && Arrays.equals(data, 3, 3 + length, connectorBytes, 0, length);
  }

  private ControlEvent.BatchChunk readBatchChunk(WireReader in, long commitId)
      throws InvalidControlEventException {
    int taskId = in.readInt("task id", 0, Integer.MAX_VALUE);
    String batchId = in.readString("batch id", MAX_NAME_BYTES);
    TableId table = ControlEventParts.readTable(in);
    int n = in.readCount("offset ranges", 2 + 1 + 4 + 8 + 8, MAX_ENTRIES);
    Map<TopicPartition, OffsetRange> ranges = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      TopicPartition tp = ControlEventParts.readTopicPartition(in);
      long from = in.readLong("range start", 0, Long.MAX_VALUE - 1);
      long to = in.readLong("range end", from + 1, Long.MAX_VALUE);
      if (ranges.put(tp, new OffsetRange(from, to)) != null) {
        throw WireReader.malformed("offset ranges name " + tp + " twice");
      }
    }
    long maxTs = in.readLong("max record timestamp");
    ControlEventParts.ChunkFiles f = ControlEventParts.readChunkFiles(in);
    return new ControlEvent.BatchChunk(
        connector,
        commitId,
        taskId,
        batchId,
        table,
        ranges,
        maxTs,
        f.payloadVersion(),
        f.files(),
        f.records(),
        f.bytes(),
        f.chunk(),
        f.chunks(),
        f.data(),
        in.remaining() > 0 ? TransactionWire.readCounts(in) : TransactionCounts.NONE);
  }

  private ControlEvent.CompactionResultChunk readCompactionResultChunk(WireReader in, long commitId)
      throws InvalidControlEventException {
    int taskId = in.readInt("task id", 0, Integer.MAX_VALUE);
    String jobId = in.readString("job id", MAX_NAME_BYTES);
    TableId table = ControlEventParts.readTable(in);
    ControlEventParts.ChunkFiles f = ControlEventParts.readChunkFiles(in);
    return new ControlEvent.CompactionResultChunk(
        connector,
        commitId,
        taskId,
        jobId,
        table,
        f.payloadVersion(),
        f.files(),
        f.records(),
        f.bytes(),
        f.chunk(),
        f.chunks(),
        f.data());
  }

  private ControlEvent.TaskDone readTaskDone(WireReader in, long commitId)
      throws InvalidControlEventException {
    int taskId = in.readInt("task id", 0, Integer.MAX_VALUE);
    int n = in.readCount("assigned partitions", 2 + 1 + 4, MAX_ENTRIES);
    List<TopicPartition> assigned = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      assigned.add(ControlEventParts.readTopicPartition(in));
    }
    List<String> held = in.remaining() > 0 ? TransactionWire.readIds(in, "held ENDs") : List.of();
    return new ControlEvent.TaskDone(connector, commitId, taskId, assigned, held);
  }

  private ControlEvent.CompactRequest readCompactRequest(WireReader in, long commitId)
      throws InvalidControlEventException {
    int taskId = in.readInt("task id", 0, Integer.MAX_VALUE);
    String jobId = in.readString("job id", MAX_NAME_BYTES);
    TableId table = ControlEventParts.readTable(in);
    int n = in.readCount("compaction jobs", 2 + 1 + 4 + 1, MAX_JOBS);
    List<CompactionJob> jobs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String key = in.readString("job key", MAX_NAME_BYTES);
      jobs.add(new CompactionJob(key, in.readBytes("job spec", MAX_JOB_SPEC_BYTES)));
    }
    if (jobs.isEmpty()) {
      throw WireReader.malformed("a compaction request without jobs");
    }
    return new ControlEvent.CompactRequest(connector, commitId, taskId, jobId, table, jobs);
  }

  private ControlEvent.TableCommitted readTableCommitted(WireReader in, long commitId)
      throws InvalidControlEventException {
    TableId table = ControlEventParts.readTable(in);
    int n = in.readCount("decisions", 2 + 1 + 1, MAX_ENTRIES);
    Map<String, BatchPlan.Decision> decisions = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      String batchId = in.readString("batch id", MAX_NAME_BYTES);
      int ordinal = in.readUnsignedByte("decision");
      if (ordinal >= DECISIONS.length) {
        throw WireReader.malformed("decision " + ordinal + " of batch " + batchId + " is unknown");
      }
      decisions.put(batchId, DECISIONS[ordinal]);
    }
    return new ControlEvent.TableCommitted(connector, commitId, table, decisions);
  }
}
