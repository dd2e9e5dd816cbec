package io.streamhouse.e2e.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * What each commit of a connector added to a keyed Iceberg table, from the snapshots' summaries
 * ({@code added-data-files}, {@code added-delete-files}, {@code added-equality-delete-files}): its
 * commits are the snapshots that carry its watermarks; other snapshots (a compaction's replace) are
 * counted apart.
 */
final class IcebergCommitFiles {
  private static final String[] COLUMNS = {
    "commits",
    "data files/commit (mean/max)",
    "delete files/commit (mean/max)",
    "equality delete files",
    "other snapshots"
  };

  private IcebergCommitFiles() {}

  /** The columns of a drain's table for the commits of {@code connector} to {@code table}. */
  static Map<String, String> columns(Table table, String connector) {
    String watermarks = "streamhouse." + connector + ".watermarks";
    long commits = 0;
    long dataFiles = 0;
    long maxDataFiles = 0;
    long deleteFiles = 0;
    long maxDeleteFiles = 0;
    long equalityDeleteFiles = 0;
    long others = 0;
    for (Snapshot s : table.snapshots()) {
      Map<String, String> summary = s.summary();
      equalityDeleteFiles += count(summary, "added-equality-delete-files");
      if (!summary.containsKey(watermarks)) {
        others++;
        continue;
      }
      commits++;
      long data = count(summary, "added-data-files");
      long deletes = count(summary, "added-delete-files");
      dataFiles += data;
      maxDataFiles = Math.max(maxDataFiles, data);
      deleteFiles += deletes;
      maxDeleteFiles = Math.max(maxDeleteFiles, deletes);
    }
    Snapshot current = table.currentSnapshot();
    long liveEqualityDeletes =
        current == null ? 0 : count(current.summary(), "total-equality-deletes");
    Map<String, String> columns = new LinkedHashMap<>();
    columns.put(COLUMNS[0], Long.toString(commits));
    columns.put(COLUMNS[1], meanMax(dataFiles, maxDataFiles, commits));
    columns.put(COLUMNS[2], meanMax(deleteFiles, maxDeleteFiles, commits));
    columns.put(
        COLUMNS[3],
        equalityDeleteFiles == 0 && liveEqualityDeletes == 0
            ? "0"
            : equalityDeleteFiles + " (" + liveEqualityDeletes + " equality deletes live)");
    columns.put(COLUMNS[4], Long.toString(others));
    return columns;
  }

  /** The same columns for a table they do not apply to (Paimon). */
  static Map<String, String> notApplicable() {
    Map<String, String> columns = new LinkedHashMap<>();
    for (String c : COLUMNS) {
      columns.put(c, "n/a");
    }
    return columns;
  }

  private static String meanMax(long sum, long max, long n) {
    return n == 0 ? "n/a" : String.format("%.1f/%d", (double) sum / n, max);
  }

  private static long count(Map<String, String> summary, String key) {
    return Long.parseLong(summary.getOrDefault(key, "0"));
  }
}
