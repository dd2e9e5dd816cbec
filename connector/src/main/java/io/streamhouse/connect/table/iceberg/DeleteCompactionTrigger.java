package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.config.MaintenanceSettings;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;

/**
 * Whether a table's rows deleted by position call for a compaction now, from its snapshot's summary
 * (no file read): once {@code maintenance.compact.delete-ratio} of its rows are deleted, or, while
 * all its files together stay under {@code maintenance.compact.small-file-bytes}, as soon as any
 * are and it holds {@code maintenance.compact.min-input-files} files (data and delete files). A
 * reader of a small table pays for every file more than for its deleted rows (each file is opened,
 * its footer read, its deletes loaded), and rewriting such a table into one file costs less than a
 * second; a commit that changed a few rows adds a file or two, and waits for the next.
 */
final class DeleteCompactionTrigger {
  private DeleteCompactionTrigger() {}

  static boolean due(Snapshot snapshot, MaintenanceSettings settings) {
    return snapshot != null && due(snapshot.summary(), settings);
  }

  /** Whether a snapshot with this summary calls for a compaction. */
  static boolean due(Map<String, String> summary, MaintenanceSettings settings) {
    if (!settings.compactsDeletes() || summary == null) {
      return false;
    }
    double deleted = DeletedRowShare.of(summary);
    if (deleted <= 0) {
      return false;
    }
    if (deleted >= settings.compactDeleteRatio()) {
      return true;
    }
    long bytes = DeletedRowShare.count(summary, SnapshotSummary.TOTAL_FILE_SIZE_PROP);
    long files =
        DeletedRowShare.count(summary, SnapshotSummary.TOTAL_DATA_FILES_PROP)
            + DeletedRowShare.count(summary, SnapshotSummary.TOTAL_DELETE_FILES_PROP);
    return bytes > 0
        && bytes < settings.compactSmallFileBytes()
        && files >= settings.compactMinInputFiles();
  }
}
