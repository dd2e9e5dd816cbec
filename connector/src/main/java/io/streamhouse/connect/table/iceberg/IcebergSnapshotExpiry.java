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

/**
 * Expires a table's old snapshots with Iceberg's own {@link ExpireSnapshots}: snapshots older than
 * the maximum age beyond the newest few of the main branch go; snapshots a tag or branch references
 * stay (the connector's tag keeps its latest snapshot, so its watermarks survive); data and
 * manifest files are deleted only when no remaining snapshot references them. The table's own
 * {@code history.expire.*} properties win over the connector's settings.
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
    long cutoff = nowMs - maxAgeMs;
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
}
