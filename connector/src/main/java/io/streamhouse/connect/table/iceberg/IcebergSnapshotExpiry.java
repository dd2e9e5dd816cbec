package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.config.MaintenanceSettings;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.relocated.com.google.common.util.concurrent.MoreExecutors;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * Expires a table's old snapshots with Iceberg's own {@link ExpireSnapshots}: snapshots older than
 * the maximum age beyond the newest few of the main branch go; snapshots a tag or branch references
 * stay (the connector's tag keeps its latest snapshot, so its watermarks survive); data and
 * manifest files are deleted only when no remaining snapshot references them. Beyond the newest
 * {@code maintenance.expire.max-snapshots} of the main branch, younger snapshots go too: each one
 * is kept in the metadata file every commit rewrites. The table's own {@code history.expire.*}
 * properties win over the connector's settings; a table with its own maximum age has no bound on
 * the number.
 */
final class IcebergSnapshotExpiry {
  /** Snapshots expired and files deleted. */
  record Result(int snapshotsExpired, long filesDeleted) {
    static final Result NOTHING = new Result(0, 0);
  }

  private IcebergSnapshotExpiry() {}

  static Result expire(Table table, MaintenanceSettings settings, long nowMs, Runnable checkpoint) {
    if (!PropertyUtil.propertyAsBoolean(
        table.properties(), TableProperties.GC_ENABLED, TableProperties.GC_ENABLED_DEFAULT)) {
      return Result.NOTHING; // the table forbids deleting files (e.g. it shares them)
    }
    long maxAgeMs =
        PropertyUtil.propertyAsLong(
            table.properties(), TableProperties.MAX_SNAPSHOT_AGE_MS, settings.expireMaxAgeMs());
    int minSnapshots =
        PropertyUtil.propertyAsInt(
            table.properties(),
            TableProperties.MIN_SNAPSHOTS_TO_KEEP,
            settings.expireMinSnapshots());
    long cutoff = Math.max(nowMs - maxAgeMs, countCutoff(table, settings, minSnapshots));
    Set<Long> before = new HashSet<>();
    boolean anyOld = false;
    for (Snapshot s : table.snapshots()) {
      before.add(s.snapshotId());
      anyOld |= s.timestampMillis() < cutoff;
    }
    if (!anyOld || before.size() <= minSnapshots) {
      return Result.NOTHING;
    }
    AtomicLong deleted = new AtomicLong();
    AtomicBoolean committed = new AtomicBoolean();
    table
        .expireSnapshots()
        .expireOlderThan(cutoff)
        .retainLast(Math.max(1, minSnapshots))
        .cleanupLevel(ExpireSnapshots.CleanupLevel.ALL)
        .planWith(MoreExecutors.newDirectExecutorService())
        .deleteWith(
            path -> {
              if (committed.compareAndSet(false, true)) {
                checkpoint.run(); // the expiry is committed, its files are not deleted yet
              }
              table.io().deleteFile(path);
              deleted.incrementAndGet();
            })
        .commit();
    table.refresh();
    for (Snapshot s : table.snapshots()) {
      before.remove(s.snapshotId());
    }
    return new Result(before.size(), deleted.get());
  }

  /**
   * The timestamp of the oldest snapshot of the main branch that the bound on the number of
   * snapshots keeps (expiry takes snapshots older than it), or {@link Long#MIN_VALUE} when there is
   * no bound or the branch is within it.
   */
  private static long countCutoff(Table table, MaintenanceSettings settings, int minSnapshots) {
    int max = settings.expireMaxSnapshots();
    if (max <= 0 || table.properties().containsKey(TableProperties.MAX_SNAPSHOT_AGE_MS)) {
      return Long.MIN_VALUE;
    }
    int keep = Math.max(max, minSnapshots);
    int seen = 0;
    for (Snapshot s : SnapshotUtil.currentAncestors(table)) {
      if (++seen == keep) {
        return s.timestampMillis();
      }
    }
    return Long.MIN_VALUE;
  }
}
