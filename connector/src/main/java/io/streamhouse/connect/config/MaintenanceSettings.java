package io.streamhouse.connect.config;

/**
 * What the coordinator's table maintenance does, from the {@code maintenance.*} keys (see {@link
 * MaintenanceConfigDef} for each one's meaning). {@code expireMaxAgeMs} 0: no expiry; {@code
 * orphansMinAgeMs} 0: no orphan cleanup. {@code compactDeleteRatio}: the share of rows deleted by
 * position at which a table is compacted right after a commit (0: never), a table smaller than
 * {@code compactSmallFileBytes} at any share; such a compaction waits at most {@code
 * deleteCompactionGapMs} after the table's last one. {@code expireMaxSnapshots}: the most snapshots
 * an Iceberg table keeps beyond those it must (0: no such bound).
 */
public record MaintenanceSettings(
    boolean enabled,
    long intervalMs,
    long timeBudgetMs,
    long expireMaxAgeMs,
    int expireMinSnapshots,
    boolean compactEnabled,
    int compactMinInputFiles,
    long compactMaxGroupBytes,
    long compactSmallFileBytes,
    long orphansMinAgeMs,
    double compactDeleteRatio,
    long deleteCompactionGapMs,
    int expireMaxSnapshots) {

  /** Delete compactions at most once per this many commit intervals. */
  static final int DELETE_COMPACTION_GAP_INTERVALS = 3;

  /** Without delete-ratio compaction and without a bound on the number of snapshots. */
  public MaintenanceSettings(
      boolean enabled,
      long intervalMs,
      long timeBudgetMs,
      long expireMaxAgeMs,
      int expireMinSnapshots,
      boolean compactEnabled,
      int compactMinInputFiles,
      long compactMaxGroupBytes,
      long compactSmallFileBytes,
      long orphansMinAgeMs) {
    this(
        enabled,
        intervalMs,
        timeBudgetMs,
        expireMaxAgeMs,
        expireMinSnapshots,
        compactEnabled,
        compactMinInputFiles,
        compactMaxGroupBytes,
        compactSmallFileBytes,
        orphansMinAgeMs,
        0,
        0,
        0);
  }

  static MaintenanceSettings from(StreamhouseSinkConfig config) {
    return new MaintenanceSettings(
        config.getBoolean(MaintenanceConfigDef.ENABLED_CONFIG),
        config.getLong(MaintenanceConfigDef.INTERVAL_MS_CONFIG),
        config.getLong(MaintenanceConfigDef.TIME_BUDGET_MS_CONFIG),
        config.getLong(MaintenanceConfigDef.EXPIRE_MAX_AGE_MS_CONFIG),
        config.getInt(MaintenanceConfigDef.EXPIRE_MIN_SNAPSHOTS_CONFIG),
        config.getBoolean(MaintenanceConfigDef.COMPACT_ENABLED_CONFIG),
        config.getInt(MaintenanceConfigDef.COMPACT_MIN_INPUT_FILES_CONFIG),
        config.getLong(MaintenanceConfigDef.COMPACT_MAX_GROUP_BYTES_CONFIG),
        config.getLong(MaintenanceConfigDef.COMPACT_SMALL_FILE_BYTES_CONFIG),
        config.getLong(MaintenanceConfigDef.ORPHANS_MIN_AGE_MS_CONFIG),
        config.getDouble(MaintenanceConfigDef.COMPACT_DELETE_RATIO_CONFIG),
        DELETE_COMPACTION_GAP_INTERVALS * config.commitIntervalMs(),
        config.getInt(MaintenanceConfigDef.EXPIRE_MAX_SNAPSHOTS_CONFIG));
  }

  public boolean expires() {
    return expireMaxAgeMs > 0;
  }

  /** Whether a table is compacted once {@link #compactDeleteRatio} of its rows are deleted. */
  public boolean compactsDeletes() {
    return compactEnabled && compactDeleteRatio > 0;
  }

  public boolean cleansOrphans() {
    return orphansMinAgeMs > 0;
  }
}
