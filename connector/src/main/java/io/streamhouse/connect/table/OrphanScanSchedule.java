package io.streamhouse.connect.table;

import io.streamhouse.connect.protocol.TableId;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When each table's folders were last listed for orphan files: a table is due once an hour, or once
 * per minimum orphan age when that is shorter (a file cannot become an orphan to delete faster).
 */
public final class OrphanScanSchedule {
  static final long MAX_PERIOD_MS = 60 * 60_000L;
  private final Map<TableId, Long> lastScan = new ConcurrentHashMap<>();

  /** Whether {@code table} is due at {@code nowMs}; if so, it counts as scanned now. */
  public boolean due(TableId table, long nowMs, long minAgeMs) {
    long periodMs = Math.min(MAX_PERIOD_MS, minAgeMs);
    Long last = lastScan.get(table);
    if (last != null && nowMs - last < periodMs) {
      return false;
    }
    lastScan.put(table, nowMs);
    return true;
  }
}
