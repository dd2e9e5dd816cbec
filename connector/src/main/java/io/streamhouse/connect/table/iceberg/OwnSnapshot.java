package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.table.SnapshotKeys;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;

/**
 * The latest snapshot of the main branch's ancestry that carries the connector's watermarks. When
 * an expiry cut that ancestry (a snapshot between the current one and the connector's latest was
 * expired, so its parent link leads nowhere), the connector's tag, moved with each of its commits,
 * names the snapshot instead: {@code offAncestry} is then true. A commit of the Apache Iceberg sink
 * under the same connector name (it consumed from the same consumer group; see {@link
 * SnapshotKeys#isApacheSinkCommitOfThisName}) above the connector's latest snapshot ends the walk
 * with none: the table continues where Connect's offsets say, as on a table the connector never
 * wrote.
 */
record OwnSnapshot(Snapshot snapshot, boolean offAncestry) {
  static Optional<OwnSnapshot> find(Table table, SnapshotKeys keys) {
    Snapshot s = table.currentSnapshot();
    while (s != null) {
      if (s.summary() != null && s.summary().containsKey(keys.watermarks())) {
        return Optional.of(new OwnSnapshot(s, false));
      }
      if (keys.isApacheSinkCommitOfThisName(s.summary())) {
        return Optional.empty(); // the Apache sink wrote after the connector: its offsets count
      }
      if (s.parentId() == null) {
        return Optional.empty(); // the branch's first snapshot: none of its ancestry is ours
      }
      Snapshot parent = table.snapshot(s.parentId());
      if (parent == null) {
        return byTag(table, keys); // expired: the ancestry is cut here
      }
      s = parent;
    }
    return Optional.empty();
  }

  private static Optional<OwnSnapshot> byTag(Table table, SnapshotKeys keys) {
    SnapshotRef tag = table.refs().get(keys.tag());
    Snapshot tagged = tag == null || !tag.isTag() ? null : table.snapshot(tag.snapshotId());
    if (tagged == null
        || tagged.summary() == null
        || !tagged.summary().containsKey(keys.watermarks())) {
      return Optional.empty();
    }
    return Optional.of(new OwnSnapshot(tagged, true));
  }
}
