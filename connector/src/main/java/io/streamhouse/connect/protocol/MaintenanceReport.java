package io.streamhouse.connect.protocol;

/**
 * What one maintenance pass did to one table: snapshots expired, files the expiry deleted, data
 * files rewritten by compaction (input files and bytes, output files, rewrites that lost to a
 * concurrent commit, time spent rewriting), orphan files deleted, and the table's live data files
 * afterwards (-1: unknown). Passes of several steps add their reports up with {@link #plus}.
 */
public record MaintenanceReport(
    int snapshotsExpired,
    long expiredFilesDeleted,
    int filesRewritten,
    long bytesRewritten,
    int filesWritten,
    int rewriteConflicts,
    long rewriteDurationMs,
    int orphansDeleted,
    long liveDataFiles) {

  /** A pass that did nothing (a format without maintenance). */
  public static final MaintenanceReport NONE = new MaintenanceReport(0, 0, 0, 0, 0, 0, 0, 0, -1);

  public static MaintenanceReport expired(int snapshots, long filesDeleted) {
    return new MaintenanceReport(snapshots, filesDeleted, 0, 0, 0, 0, 0, 0, -1);
  }

  public static MaintenanceReport compacted(
      int filesRewritten, long bytesRewritten, int filesWritten, int conflicts, long durationMs) {
    return new MaintenanceReport(
        0, 0, filesRewritten, bytesRewritten, filesWritten, conflicts, durationMs, 0, -1);
  }

  public static MaintenanceReport orphans(int deleted) {
    return new MaintenanceReport(0, 0, 0, 0, 0, 0, 0, deleted, -1);
  }

  public static MaintenanceReport liveDataFiles(long files) {
    return new MaintenanceReport(0, 0, 0, 0, 0, 0, 0, 0, files);
  }

  /** Whether the pass changed the table or its files. */
  public boolean changedSomething() {
    return snapshotsExpired
            + expiredFilesDeleted
            + filesRewritten
            + rewriteConflicts
            + orphansDeleted
        > 0;
  }

  /** Both reports' figures added up; the live data files of {@code other} when it knows them. */
  public MaintenanceReport plus(MaintenanceReport other) {
    return new MaintenanceReport(
        snapshotsExpired + other.snapshotsExpired,
        expiredFilesDeleted + other.expiredFilesDeleted,
        filesRewritten + other.filesRewritten,
        bytesRewritten + other.bytesRewritten,
        filesWritten + other.filesWritten,
        rewriteConflicts + other.rewriteConflicts,
        rewriteDurationMs + other.rewriteDurationMs,
        orphansDeleted + other.orphansDeleted,
        other.liveDataFiles >= 0 ? other.liveDataFiles : liveDataFiles);
  }
}
