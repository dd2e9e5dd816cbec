package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.protocol.TableId;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** When each table's folders were last listed for orphan files; a table is due once per period. */
final class OrphanScanSchedule {
  private final long periodMs;
  private final Map<TableId, Long> lastScan = new ConcurrentHashMap<>();

  OrphanScanSchedule(long periodMs) {
    this.periodMs = periodMs;
  }

  /** Whether {@code table} is due at {@code nowMs}; if so, it counts as scanned now. */
  boolean due(TableId table, long nowMs) {
    Long last = lastScan.get(table);
    if (last != null && nowMs - last < periodMs) {
      return false;
    }
    lastScan.put(table, nowMs);
    return true;
  }
}
