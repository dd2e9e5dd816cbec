package io.streamhouse.connect.table.iceberg;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;

/**
 * The connector's compactions of a keyed table since a snapshot, by their {@link RewriteMap}s: a
 * position computed against that snapshot can be moved to the row's place now only if every
 * snapshot since that removed data files is such a compaction.
 */
final class MappedCompactions {
  private MappedCompactions() {}

  /**
   * The rewrite map locations of the compactions of {@code table} after snapshot {@code base}
   * ({@code -1}: the table had none) up to the current one, oldest first; empty if {@code base} is
   * not in the current ancestry, or if a snapshot since removed data files without a map (another
   * writer's rewrite or delete: nothing says where its rows went). {@code mapKey} names the maps.
   */
  static Optional<List<String>> since(Table table, String mapKey, long base) {
    List<String> maps = new ArrayList<>();
    Snapshot s = table.currentSnapshot();
    while (s != null && s.snapshotId() != base) {
      Map<String, String> summary = s.summary();
      String map = summary == null ? null : summary.get(mapKey);
      if (map != null) {
        maps.add(map);
      } else if (removesDataFiles(table, s)) {
        return Optional.empty();
      }
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    if (s == null && base != -1) {
      return Optional.empty();
    }
    Collections.reverse(maps);
    return Optional.of(maps);
  }

  /**
   * Whether {@code snapshot} removed data files: its summary says so when Iceberg wrote it; an
   * append never does; otherwise its manifests are read.
   */
  private static boolean removesDataFiles(Table table, Snapshot snapshot) {
    Map<String, String> summary = snapshot.summary();
    String removed = summary == null ? null : summary.get(SnapshotSummary.DELETED_FILES_PROP);
    if (removed != null) {
      return !removed.equals("0");
    }
    if (DataOperations.APPEND.equals(snapshot.operation())) {
      return false;
    }
    return SnapshotChanges.builderFor(table)
        .snapshot(snapshot)
        .build()
        .removedDataFiles()
        .iterator()
        .hasNext();
  }
}
