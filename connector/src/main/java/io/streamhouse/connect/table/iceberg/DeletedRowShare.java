package io.streamhouse.connect.table.iceberg;

import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;

/**
 * The share of a table's rows that are deleted by position (position delete files and deletion
 * vectors), from the totals Iceberg keeps in every snapshot's summary: what a reader reads for
 * nothing. 0 when the summary does not say, or says nonsense.
 */
final class DeletedRowShare {
  private DeletedRowShare() {}

  static double of(Snapshot snapshot) {
    return snapshot == null ? 0 : of(snapshot.summary());
  }

  /** The share of a snapshot summary's rows deleted by position. */
  static double of(Map<String, String> summary) {
    if (summary == null) {
      return 0;
    }
    long rows = count(summary, SnapshotSummary.TOTAL_RECORDS_PROP);
    long deleted = count(summary, SnapshotSummary.TOTAL_POS_DELETES_PROP);
    if (rows <= 0 || deleted <= 0) {
      return 0;
    }
    return Math.min(1.0, (double) deleted / rows);
  }

  /** A count of the summary, -1 if it is missing or not a number. */
  static long count(Map<String, String> summary, String key) {
    String value = summary.get(key);
    if (value == null) {
      return -1;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
