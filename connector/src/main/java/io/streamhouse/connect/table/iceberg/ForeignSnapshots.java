package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.table.SnapshotKeys;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Who wrote the snapshots of a keyed table since the one a key index was read from. The connector's
 * own commits carry its watermarks and its compactions their rewrite map; every other snapshot is
 * an outside writer's (a merge-on-read update or delete from Spark or Trino, a copy-on-write
 * rewrite, {@code rewrite_data_files}, an append, the take-over of the Apache sink's files), which
 * may have added, moved or deleted rows of any key: an index read before it no longer knows where
 * the live rows are (docs/iceberg-primary-key-tables.md, "Outside writers").
 */
final class ForeignSnapshots {
  /**
   * The snapshots after a base, oldest first: the connector's commits, its compactions and the
   * outside writers' snapshots.
   */
  record Since(List<Snapshot> commits, List<Snapshot> compactions, List<Snapshot> foreign) {
    /** The connector's compactions and the outside writers' snapshots, oldest first. */
    List<Snapshot> notCommits() {
      List<Snapshot> all = new ArrayList<>(compactions);
      all.addAll(foreign);
      all.sort(java.util.Comparator.comparingLong(Snapshot::sequenceNumber));
      return all;
    }
  }

  private ForeignSnapshots() {}

  /**
   * The snapshots of {@code table} after {@code base} ({@code -1}: the table had none) up to the
   * current one, split into the connector's commits, its compactions and the rest; empty if {@code
   * base} is not in the current snapshot's ancestry.
   */
  static Optional<Since> since(Table table, SnapshotKeys keys, long base) {
    List<Snapshot> commits = new ArrayList<>();
    List<Snapshot> compactions = new ArrayList<>();
    List<Snapshot> foreign = new ArrayList<>();
    Snapshot s = table.currentSnapshot();
    while (s != null && s.snapshotId() != base) {
      Map<String, String> summary = s.summary();
      if (summary != null && summary.containsKey(keys.rewriteMap())) {
        compactions.add(s);
      } else if (summary == null || !summary.containsKey(keys.watermarks())) {
        foreign.add(s);
      } else {
        commits.add(s);
      }
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    if (s == null && base != -1) {
      return Optional.empty();
    }
    Collections.reverse(commits);
    Collections.reverse(compactions);
    Collections.reverse(foreign);
    return Optional.of(new Since(commits, compactions, foreign));
  }

  /** {@code snapshot 12 (overwrite by spark-3.5 app-1)}: what a log line or a rejection names. */
  static String describe(Snapshot snapshot) {
    Map<String, String> summary = snapshot.summary() == null ? Map.of() : snapshot.summary();
    StringBuilder text =
        new StringBuilder("snapshot ")
            .append(snapshot.snapshotId())
            .append(" (")
            .append(snapshot.operation());
    String engine = summary.get("engine-name");
    if (engine != null) {
      text.append(" by ").append(engine);
      String version = summary.get("engine-version");
      if (version != null) {
        text.append('-').append(version);
      }
    }
    String app = summary.get("spark.app.id");
    if (app != null) {
      text.append(' ').append(app);
    }
    return text.append(')').toString();
  }
}
