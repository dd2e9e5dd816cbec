package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.config.MaintenanceSettings;
import io.streamhouse.connect.table.MaintenanceCheckpoints;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The compaction step of a maintenance pass of one Iceberg table: small files with the connector's
 * settings (a table's {@code streamhouse.compact.*} properties first), and on a table whose deleted
 * rows call for it ({@link DeleteCompactionTrigger}), every data file with deletes. A table with
 * position deletes (a keyed table) is compacted one group at a time, each planned from the current
 * snapshot and committed under the table's commit lock, which is released between groups: no commit
 * of the connector can invalidate a group (a busy keyed table deletes rows of nearly every data
 * file in every commit), and none waits longer than one group's rewrite (bounded by {@code
 * maintenance.compact.max-group-bytes}).
 */
final class IcebergPassCompaction {
  /** Groups one pass rewrites at most on a table with position deletes. */
  private static final int MAX_GROUPS_PER_PASS = 1_000;

  private IcebergPassCompaction() {}

  /**
   * Compacts {@code table}; null if compaction is off for it. {@code rewriteMapKey}: the summary
   * key of the rewrite maps (keyed tables), or null. {@code commitLock}: held by every commit of
   * the connector to the table.
   */
  static IcebergFileCompactor.CompactionResult run(
      Table table,
      MaintenanceSettings settings,
      long deadlineNanos,
      MaintenanceCheckpoints checkpoints,
      String rewriteMapKey,
      Object commitLock) {
    boolean compacts =
        PropertyUtil.propertyAsBoolean(
            table.properties(), IcebergFormat.COMPACT_ENABLED_PROPERTY, settings.compactEnabled());
    if (!compacts) {
      return null;
    }
    double deleted = DeletedRowShare.of(table.currentSnapshot());
    IcebergFileCompactor compactor =
        new IcebergFileCompactor(
            (t, rewritten) -> checkpoints.beforeRewriteCommit(), rewriteMapKey);
    IcebergFileCompactor.Settings compaction =
        new IcebergFileCompactor.Settings(
            PropertyUtil.propertyAsInt(
                table.properties(),
                IcebergFormat.COMPACT_MIN_INPUT_FILES_PROPERTY,
                settings.compactMinInputFiles()),
            null, // the table's write.target-file-size-bytes
            settings.compactMaxGroupBytes(),
            deleted > 0 ? 1 : Integer.MAX_VALUE,
            settings.compactSmallFileBytes(),
            DeleteCompactionTrigger.due(table.currentSnapshot(), settings) ? 1 : null);
    if (deleted <= 0) {
      return compactor.compact(table, compaction, deadlineNanos);
    }
    IcebergFileCompactor.CompactionResult total = null;
    for (int group = 0; group < MAX_GROUPS_PER_PASS; group++) {
      IcebergFileCompactor.CompactionResult one;
      synchronized (commitLock) {
        one = compactor.compact(table, compaction, deadlineNanos);
      }
      total = total == null ? one : total.plus(one);
      if (one.groupsRewritten() == 0 || System.nanoTime() - deadlineNanos >= 0) {
        break;
      }
    }
    return total;
  }
}
