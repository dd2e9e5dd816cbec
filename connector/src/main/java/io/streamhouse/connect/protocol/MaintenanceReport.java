package io.streamhouse.connect.protocol;

/**
 * What one maintenance pass did to one table: snapshots expired, files the expiry deleted, data
 * files rewritten by compaction (input files and bytes, output files), rewrites that lost to a
 * concurrent commit, orphan files deleted, and the table's live data files afterwards (-1:
 * unknown).
 */
public record MaintenanceReport(
    int snapshotsExpired,
    long expiredFilesDeleted,
    int filesRewritten,
    long bytesRewritten,
    int filesWritten,
    int rewriteConflicts,
    int orphansDeleted,
    long liveDataFiles) {

  /** A pass that did nothing (a format without maintenance). */
  public static final MaintenanceReport NONE = new MaintenanceReport(0, 0, 0, 0, 0, 0, 0, -1);

  /** Whether the pass changed the table or its files. */
  public boolean changedSomething() {
    return snapshotsExpired
            + expiredFilesDeleted
            + filesRewritten
            + rewriteConflicts
            + orphansDeleted
        > 0;
  }

  /** This report with the compaction figures of {@code other} added. */
  public MaintenanceReport plus(MaintenanceReport other) {
    return new MaintenanceReport(
        snapshotsExpired + other.snapshotsExpired,
        expiredFilesDeleted + other.expiredFilesDeleted,
        filesRewritten + other.filesRewritten,
        bytesRewritten + other.bytesRewritten,
        filesWritten + other.filesWritten,
        rewriteConflicts + other.rewriteConflicts,
        orphansDeleted + other.orphansDeleted,
        other.liveDataFiles >= 0 ? other.liveDataFiles : liveDataFiles);
  }
}
