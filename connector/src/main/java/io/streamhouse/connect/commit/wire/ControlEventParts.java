package io.streamhouse.connect.commit.wire;

import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.TopicNames;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * The parts several control events share in the {@link ControlEventCodec}'s layout: a table, a
 * topic-partition, the head and the end of every chunk. Each is written and read side by side here,
 * so that both ends keep to one layout; reading checks each value as the codec does the rest.
 */
final class ControlEventParts {
  private static final int MAX_NAMESPACE_LEVELS = 16;

  private ControlEventParts() {}

  static void writeTable(DataOutputStream out, TableId t) throws IOException {
    out.writeUTF(t.catalog());
    out.writeInt(t.namespace().size());
    for (String level : t.namespace()) {
      out.writeUTF(level);
    }
    out.writeUTF(t.name());
  }

  static TableId readTable(WireReader in) throws InvalidControlEventException {
    String catalog = in.readString("catalog", ControlEventCodec.MAX_NAME_BYTES);
    int n = in.readCount("namespace levels", 3, MAX_NAMESPACE_LEVELS);
    List<String> namespace = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      namespace.add(in.readString("namespace level", ControlEventCodec.MAX_NAME_BYTES));
    }
    return new TableId(
        catalog, namespace, in.readString("table name", ControlEventCodec.MAX_NAME_BYTES));
  }

  static void writeTopicPartition(DataOutputStream out, TopicPartition tp) throws IOException {
    out.writeUTF(tp.topic());
    out.writeInt(tp.partition());
  }

  static TopicPartition readTopicPartition(WireReader in) throws InvalidControlEventException {
    String topic = in.readString("topic", TopicNames.MAX_CHARS);
    if (!TopicNames.isLegal(topic)) {
      throw WireReader.malformed("'" + topic + "' is not a Kafka topic name");
    }
    return new TopicPartition(topic, in.readInt("partition", 0, Integer.MAX_VALUE));
  }

  /** What every chunk starts with: its task, its batch or job, its table. */
  static void writeChunkHead(DataOutputStream out, ControlEvent.Chunk e) throws IOException {
    out.writeInt(e.taskId());
    out.writeUTF(e.id());
    writeTable(out, e.table());
  }

  /** What every chunk ends with: what the files hold, and this chunk's piece of their payload. */
  static void writeChunkFiles(DataOutputStream out, ControlEvent.Chunk e) throws IOException {
    out.writeInt(e.payloadVersion());
    out.writeInt(e.files());
    out.writeLong(e.records());
    out.writeLong(e.bytes());
    out.writeInt(e.chunk());
    out.writeInt(e.chunks());
    out.writeInt(e.data().length);
    out.write(e.data());
  }

  /** The end of every chunk, as {@link #writeChunkFiles} wrote it. */
  record ChunkFiles(
      int payloadVersion,
      int files,
      long records,
      long bytes,
      int chunk,
      int chunks,
      byte[] data) {}

  static ChunkFiles readChunkFiles(WireReader in) throws InvalidControlEventException {
    int payloadVersion = in.readInt("payload version", 0, Integer.MAX_VALUE);
    int files = in.readInt("file count", 0, Integer.MAX_VALUE);
    long records = in.readLong("record count", 0, Long.MAX_VALUE);
    long bytes = in.readLong("byte count", 0, Long.MAX_VALUE);
    int chunk = in.readInt("chunk index", 0, ControlEventCodec.MAX_CHUNKS - 1);
    int chunks = in.readInt("chunk count", chunk + 1, ControlEventCodec.MAX_CHUNKS);
    byte[] payload = in.readBytes("payload", ControlChannel.CHUNK_BYTES);
    return new ChunkFiles(payloadVersion, files, records, bytes, chunk, chunks, payload);
  }
}
