package io.streamhouse.connect.migration;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.JsonUtil;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The Apache sink's control-topic offsets in a table: the snapshot summary key {@code
 * kafka.connect.offsets.<control-topic>.<group-id>} its coordinator sets on every commit, a JSON
 * object of control-topic partition to the offset after the last event the table holds. Read and
 * written with Jackson (Iceberg's own mapper), in the Apache coordinator's format.
 */
final class ApacheOffsets {
  private final String key;

  /**
   * @param controlTopic the Apache sink's {@code iceberg.control.topic}
   * @param groupId its {@code iceberg.connect.group-id} (by default {@code connect-<name>})
   */
  ApacheOffsets(String controlTopic, String groupId) {
    this.key = "kafka.connect.offsets." + controlTopic + "." + groupId;
  }

  /** {@code kafka.connect.offsets.<control-topic>.<group-id>} */
  String key() {
    return key;
  }

  /** The latest snapshot of the main branch's ancestry carrying the key, or null. */
  Snapshot latest(Table table) {
    if (table.currentSnapshot() == null) {
      return null;
    }
    for (Snapshot s : SnapshotUtil.currentAncestors(table)) {
      if (s.summary() != null && s.summary().containsKey(key)) {
        return s;
      }
    }
    return null;
  }

  /** The offsets {@code snapshot} (null: none) records, by partition. */
  Map<Integer, Long> of(Snapshot snapshot) {
    Map<Integer, Long> offsets = new TreeMap<>();
    if (snapshot == null) {
      return offsets;
    }
    String value = snapshot.summary().get(key);
    try {
      JsonNode node = JsonUtil.mapper().readTree(value);
      if (!node.isObject()) {
        throw new IllegalArgumentException("not a JSON object");
      }
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        offsets.put(Integer.parseInt(e.getKey()), e.getValue().asLong());
      }
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "snapshot " + snapshot.snapshotId() + " has an unreadable " + key + ": " + value, e);
    }
    return offsets;
  }

  /** {@code offsets} as the value of the key: {@code {"0":7,"1":0}}, partitions in order. */
  static String encode(Map<Integer, Long> offsets) {
    try {
      return JsonUtil.mapper().writeValueAsString(new TreeMap<>(offsets));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
