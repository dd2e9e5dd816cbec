package io.streamhouse.connect.commit;

import io.streamhouse.connect.table.TableId;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Binary encoding of control events: a format version, a type tag, then the fields. A reader
 * rejects versions it does not know instead of misreading them.
 */
public final class ControlEventCodec {
  static final int VERSION = 1;
  private static final byte START = 1;
  private static final byte CHUNK = 2;
  private static final byte DONE = 3;
  private static final byte COMMITTED = 4;

  private ControlEventCodec() {}

  public static byte[] encode(ControlEvent event) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      if (event instanceof ControlEvent.StartCommit e) {
          out.writeByte(START);
          header(out, e);
      } else if (event instanceof ControlEvent.BatchChunk e) {
          out.writeByte(CHUNK);
          header(out, e);
          out.writeInt(e.taskId());
          out.writeUTF(e.batchId());
          table(out, e.table());
          out.writeInt(e.ranges().size());
          for (Map.Entry<TopicPartition, OffsetRange> r : e.ranges().entrySet()) {
            tp(out, r.getKey());
            out.writeLong(r.getValue().from());
            out.writeLong(r.getValue().to());
          }
          out.writeLong(e.maxRecordTimestamp());
          out.writeInt(e.payloadVersion());
          out.writeInt(e.files());
          out.writeLong(e.records());
          out.writeLong(e.bytes());
          out.writeInt(e.chunk());
          out.writeInt(e.chunks());
          out.writeInt(e.data().length);
          out.write(e.data());
      } else if (event instanceof ControlEvent.TaskDone e) {
          out.writeByte(DONE);
          header(out, e);
          out.writeInt(e.taskId());
          out.writeInt(e.assigned().size());
          for (TopicPartition tp : e.assigned()) {
            tp(out, tp);
          }
      } else if (event instanceof ControlEvent.TableCommitted e) {
          out.writeByte(COMMITTED);
          header(out, e);
          table(out, e.table());
          out.writeInt(e.decisions().size());
          for (Map.Entry<String, BatchPlan.Decision> d : e.decisions().entrySet()) {
            out.writeUTF(d.getKey());
            out.writeByte(d.getValue().ordinal());
          }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** Decodes an event; throws {@link IllegalArgumentException} for an unknown version or type. */
  public static ControlEvent decode(byte[] data) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
      int version = in.readUnsignedByte();
      if (version != VERSION) {
        throw new IllegalArgumentException("Control event version " + version + " is not supported"
            + " (this plugin reads version " + VERSION + ")");
      }
      byte type = in.readByte();
      String connector = in.readUTF();
      long commitId = in.readLong();
      return switch (type) {
        case START -> new ControlEvent.StartCommit(connector, commitId);
        case CHUNK -> chunk(in, connector, commitId);
        case DONE -> {
          int taskId = in.readInt();
          int n = in.readInt();
          List<TopicPartition> assigned = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            assigned.add(tp(in));
          }
          yield new ControlEvent.TaskDone(connector, commitId, taskId, assigned);
        }
        case COMMITTED -> {
          TableId table = table(in);
          int n = in.readInt();
          Map<String, BatchPlan.Decision> decisions = new LinkedHashMap<>();
          for (int i = 0; i < n; i++) {
            decisions.put(in.readUTF(), BatchPlan.Decision.values()[in.readByte()]);
          }
          yield new ControlEvent.TableCommitted(connector, commitId, table, decisions);
        }
        default -> throw new IllegalArgumentException("Unknown control event type " + type);
      };
    } catch (IOException e) {
      throw new IllegalArgumentException("Malformed control event: " + e, e);
    }
  }

  private static ControlEvent.BatchChunk chunk(DataInputStream in, String connector, long commitId)
      throws IOException {
    int taskId = in.readInt();
    String batchId = in.readUTF();
    TableId table = table(in);
    int n = in.readInt();
    Map<TopicPartition, OffsetRange> ranges = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      ranges.put(tp(in), new OffsetRange(in.readLong(), in.readLong()));
    }
    long maxTs = in.readLong();
    int payloadVersion = in.readInt();
    int files = in.readInt();
    long records = in.readLong();
    long bytes = in.readLong();
    int chunk = in.readInt();
    int chunks = in.readInt();
    byte[] data = new byte[in.readInt()];
    in.readFully(data);
    return new ControlEvent.BatchChunk(connector, commitId, taskId, batchId, table, ranges, maxTs,
        payloadVersion, files, records, bytes, chunk, chunks, data);
  }

  private static void header(DataOutputStream out, ControlEvent e) throws IOException {
    out.writeUTF(e.connector());
    out.writeLong(e.commitId());
  }

  private static void table(DataOutputStream out, TableId t) throws IOException {
    out.writeUTF(t.catalog());
    out.writeInt(t.namespace().size());
    for (String level : t.namespace()) {
      out.writeUTF(level);
    }
    out.writeUTF(t.name());
  }

  private static TableId table(DataInputStream in) throws IOException {
    String catalog = in.readUTF();
    int n = in.readInt();
    List<String> ns = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ns.add(in.readUTF());
    }
    return new TableId(catalog, ns, in.readUTF());
  }

  private static void tp(DataOutputStream out, TopicPartition tp) throws IOException {
    out.writeUTF(tp.topic());
    out.writeInt(tp.partition());
  }

  private static TopicPartition tp(DataInputStream in) throws IOException {
    return new TopicPartition(in.readUTF(), in.readInt());
  }
}
