package io.streamhouse.connect.commit.wire;

import io.streamhouse.connect.protocol.TransactionCounts;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The transaction parts of control events (transaction-consistent CDC): lists of source transaction
 * ids and a batch's {@link TransactionCounts}. Each is written after an event's other fields and
 * only when it is not empty, so that the events of a connector without the mode are the bytes they
 * always were. Read with the codec's bounds: ids and topics are names, counts are bounded by what
 * remains.
 */
final class TransactionWire {
  /** Transaction ids in one list or map: above any transactions.max.per.round. */
  static final int MAX_IDS = 100_000;

  /** Topics of one transaction in a count. */
  static final int MAX_TOPICS = 10_000;

  private TransactionWire() {}

  static void writeIds(DataOutputStream out, List<String> ids) throws IOException {
    out.writeInt(ids.size());
    for (String id : ids) {
      out.writeUTF(id);
    }
  }

  static List<String> readIds(WireReader in, String field) throws InvalidControlEventException {
    int n = in.readCount(field, 2 + 1, MAX_IDS);
    Set<String> ids = new LinkedHashSet<>();
    for (int i = 0; i < n; i++) {
      if (!ids.add(in.readString(field, ControlEventCodec.MAX_NAME_BYTES))) {
        throw WireReader.malformed(field + " name a transaction twice");
      }
    }
    return List.copyOf(ids);
  }

  static void writeCounts(DataOutputStream out, TransactionCounts counts) throws IOException {
    writeMap(out, counts.seen());
    writeMap(out, counts.ends());
  }

  static TransactionCounts readCounts(WireReader in) throws InvalidControlEventException {
    return new TransactionCounts(
        readMap(in, "transactions seen"), readMap(in, "transactions ended"));
  }

  private static void writeMap(DataOutputStream out, Map<String, Map<String, Long>> map)
      throws IOException {
    out.writeInt(map.size());
    for (Map.Entry<String, Map<String, Long>> tx : map.entrySet()) {
      out.writeUTF(tx.getKey());
      out.writeInt(tx.getValue().size());
      for (Map.Entry<String, Long> topic : tx.getValue().entrySet()) {
        out.writeUTF(topic.getKey());
        out.writeLong(topic.getValue());
      }
    }
  }

  private static Map<String, Map<String, Long>> readMap(WireReader in, String field)
      throws InvalidControlEventException {
    int n = in.readCount(field, 2 + 1 + 4, MAX_IDS);
    Map<String, Map<String, Long>> map = new HashMap<>();
    for (int i = 0; i < n; i++) {
      String id = in.readString(field + " id", ControlEventCodec.MAX_NAME_BYTES);
      int topics = in.readCount(field + " topics", 2 + 1 + 8, MAX_TOPICS);
      Map<String, Long> counts = new HashMap<>();
      for (int t = 0; t < topics; t++) {
        String topic = in.readString(field + " topic", ControlEventCodec.MAX_NAME_BYTES);
        if (counts.put(topic, in.readLong(field + " events", 0, Long.MAX_VALUE)) != null) {
          throw WireReader.malformed(field + " of " + id + " name topic " + topic + " twice");
        }
      }
      if (map.put(id, counts) != null) {
        throw WireReader.malformed(field + " name transaction " + id + " twice");
      }
    }
    return map;
  }
}
