package io.streamhouse.connect.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The keys of the coordinator's table maintenance (snapshot expiry, small-file compaction, orphan
 * cleanup), part of {@link SinkConfigDef}.
 */
public final class MaintenanceConfigDef {
  public static final String GROUP = "Maintenance";

  public static final String ENABLED_CONFIG = "maintenance.enabled";
  static final String ENABLED_DOC =
      "Whether the coordinator keeps the tables it commits to healthy, on a thread of its own, off the "
          + "commit path: for Iceberg tables it expires old snapshots, compacts small data files and "
          + "deletes files nothing references; for Paimon tables, which expire snapshots and compact in "
          + "Paimon's own commits, it deletes files nothing references (Paimon's orphan cleanup).";

  public static final String INTERVAL_MS_CONFIG = "maintenance.interval.ms";
  static final String INTERVAL_MS_DOC =
      "How often each table gets a maintenance pass. A table is first maintained right after the "
          + "coordinator's first commit to it, then every interval.";
  static final long INTERVAL_MS_DEFAULT = 15 * 60_000L;

  public static final String TIME_BUDGET_MS_CONFIG = "maintenance.time-budget.ms";
  static final String TIME_BUDGET_MS_DOC =
      "How long one maintenance pass may run: past it no further table and no further compaction "
          + "group is started (the one running finishes); the rest waits for the next pass.";
  static final long TIME_BUDGET_MS_DEFAULT = 5 * 60_000L;

  public static final String EXPIRE_MAX_AGE_MS_CONFIG = "maintenance.expire.max-age.ms";
  static final String EXPIRE_MAX_AGE_MS_DOC =
      "Snapshots older than this are expired (time travel reaches back this far), unless the table "
          + "sets history.expire.max-snapshot-age-ms itself. The connector's own latest snapshot is never "
          + "expired: its tag streamhouse-<connector> keeps it. Data and manifest files are deleted only "
          + "when no remaining snapshot references them (Iceberg's own cleanup). 0 turns expiry off.";
  static final long EXPIRE_MAX_AGE_MS_DEFAULT = 24 * 60 * 60_000L;

  public static final String EXPIRE_MIN_SNAPSHOTS_CONFIG = "maintenance.expire.min-snapshots";
  static final String EXPIRE_MIN_SNAPSHOTS_DOC =
      "Snapshots of the main branch that expiry keeps however old they are, unless the table sets "
          + "history.expire.min-snapshots-to-keep itself.";
  static final int EXPIRE_MIN_SNAPSHOTS_DEFAULT = 10;

  public static final String EXPIRE_MAX_SNAPSHOTS_CONFIG = "maintenance.expire.max-snapshots";
  static final String EXPIRE_MAX_SNAPSHOTS_DOC =
      "The most snapshots an Iceberg table keeps: past it the oldest are expired even when younger "
          + "than maintenance.expire.max-age.ms (never below maintenance.expire.min-snapshots, and never "
          + "a snapshot a tag or branch references). Every snapshot adds about 1 KB to the metadata file "
          + "that each commit writes and parses again and each reader parses; at a commit every 10 s a "
          + "day of snapshots is 8,640, a file of about 8 MB per commit. The bound does not apply to a "
          + "table that sets history.expire.max-snapshot-age-ms itself. 0: no bound.";
  static final int EXPIRE_MAX_SNAPSHOTS_DEFAULT = 500;

  public static final String COMPACT_ENABLED_CONFIG = "maintenance.compact.enabled";
  static final String COMPACT_ENABLED_DOC =
      "Whether a maintenance pass rewrites small data files of a table partition into files of the "
          + "table's write.target-file-size-bytes (a bin-pack rewrite). A rewrite never fails an append: "
          + "if another commit removed one of its files first, only the rewrite fails, and the next pass "
          + "tries again.";

  public static final String COMPACT_MIN_INPUT_FILES_CONFIG = "maintenance.compact.min-input-files";
  static final String COMPACT_MIN_INPUT_FILES_DOC =
      "Small files a partition must have before they are rewritten (files smaller than 75 % of the "
          + "target size count as small).";
  static final int COMPACT_MIN_INPUT_FILES_DEFAULT = 5;

  public static final String COMPACT_MAX_GROUP_BYTES_CONFIG = "maintenance.compact.max-group-bytes";
  static final String COMPACT_MAX_GROUP_BYTES_DOC =
      "The most input one rewrite reads before it commits, which bounds the work lost to a conflict "
          + "or a crash. Rows stream through; memory is that of one open data file.";
  static final long COMPACT_MAX_GROUP_BYTES_DEFAULT = 512L * 1024 * 1024;

  public static final String COMPACT_SMALL_FILE_BYTES_CONFIG =
      "maintenance.compact.small-file-bytes";
  static final String COMPACT_SMALL_FILE_BYTES_DOC =
      "Files at or above this size are never rewritten again, even below 75 % of the target size: "
          + "without it a partition's compacted file would be rewritten with every pass until it reaches "
          + "the target, so a slow stream would rewrite the same data hundreds of times. A pass rewrites at "
          + "most this many bytes of earlier output per partition. A primary-key table whose files "
          + "together are smaller than this is compacted after the commits that delete rows (see "
          + "maintenance.compact.delete-ratio).";
  static final long COMPACT_SMALL_FILE_BYTES_DEFAULT = 16L * 1024 * 1024;

  public static final String COMPACT_DELETE_RATIO_CONFIG = "maintenance.compact.delete-ratio";
  static final String COMPACT_DELETE_RATIO_DOC =
      "Primary-key Iceberg tables: once this share of the rows in a table's data files is deleted by "
          + "position (superseded or deleted keys), the table is compacted right after the commit that "
          + "reached it, not at the next maintenance interval, and every data file with deletes is "
          + "rewritten, so that readers never read more than about 1 / (1 - ratio) times the live rows. "
          + "A table whose files together are smaller than maintenance.compact.small-file-bytes is "
          + "compacted so after a commit that deletes rows, whatever the share, once it holds "
          + "maintenance.compact.min-input-files files (data and delete files): a reader of a small "
          + "table pays more for its files than for its deleted rows. Such a compaction runs between the "
          + "connector's own commits to the table, waiting after the table's last one twice that "
          + "one's duration and at most 3 commit intervals; the tasks and the coordinator move the "
          + "positions of the rewritten rows with its rewrite map, so no batch has to be written again. "
          + "0 turns it off.";
  static final double COMPACT_DELETE_RATIO_DEFAULT = 0.3;

  public static final String ORPHANS_MIN_AGE_MS_CONFIG = "maintenance.orphans.min-age.ms";
  static final String ORPHANS_MIN_AGE_MS_DOC =
      "Files under a table's location that no snapshot, manifest or metadata file references are "
          + "deleted once they are older than this (a task killed mid-batch, a rejected batch, a failed "
          + "rewrite). Keep it well above the longest write of any writer of the table. 0 turns orphan "
          + "cleanup off.";
  static final long ORPHANS_MIN_AGE_MS_DEFAULT = 3 * 24 * 60 * 60_000L;

  private MaintenanceConfigDef() {}

  static ConfigDef define(ConfigDef def) {
    int order = 0;
    return def.define(
            ENABLED_CONFIG,
            Type.BOOLEAN,
            true,
            Importance.MEDIUM,
            ENABLED_DOC,
            GROUP,
            ++order,
            Width.SHORT,
            "Table maintenance")
        .define(
            INTERVAL_MS_CONFIG,
            Type.LONG,
            INTERVAL_MS_DEFAULT,
            Range.atLeast(1_000L),
            Importance.LOW,
            INTERVAL_MS_DOC,
            GROUP,
            ++order,
            Width.SHORT,
            "Maintenance interval (ms)")
        .define(
            TIME_BUDGET_MS_CONFIG,
            Type.LONG,
            TIME_BUDGET_MS_DEFAULT,
            Range.atLeast(100L),
            Importance.LOW,
            TIME_BUDGET_MS_DOC,
            GROUP,
            ++order,
            Width.SHORT,
            "Maintenance time budget (ms)")
        .define(
            EXPIRE_MAX_AGE_MS_CONFIG,
            Type.LONG,
            EXPIRE_MAX_AGE_MS_DEFAULT,
            Range.atLeast(0L),
            Importance.MEDIUM,
            EXPIRE_MAX_AGE_MS_DOC,
            GROUP,
            ++order,
            Width.SHORT,
            "Snapshot max age (ms)")
        .define(
            EXPIRE_MIN_SNAPSHOTS_CONFIG,
            Type.INT,
            EXPIRE_MIN_SNAPSHOTS_DEFAULT,
            Range.atLeast(1),
            Importance.LOW,
            EXPIRE_MIN_SNAPSHOTS_DOC,
            GROUP,
            ++order,
            Width.SHORT,
            "Snapshots kept at least")
        .define(
            EXPIRE_MAX_SNAPSHOTS_CONFIG,
            Type.INT,
            EXPIRE_MAX_SNAPSHOTS_DEFAULT,
            Range.atLeast(0),
            Importance.LOW,
            EXPIRE_MAX_SNAPSHOTS_DOC,
            GROUP,
            ++order,
            Width.SHORT,
            "Snapshots kept at most")
        .define(
            COMPACT_ENABLED_CONFIG,
            Type.BOOLEAN,
            true,
            Importance.MEDIUM,
            COMPACT_ENABLED_DOC,
            GROUP,
            ++order,
            Width.SHORT,
            "Small-file compaction")
        .define(
            COMPACT_MIN_INPUT_FILES_CONFIG,
            Type.INT,
            COMPACT_MIN_INPUT_FILES_DEFAULT,
            Range.atLeast(2),
            Importance.LOW,
            COMPACT_MIN_INPUT_FILES_DOC,
            GROUP,
            ++order,
            Width.SHORT,
            "Compaction min input files")
        .define(
            COMPACT_MAX_GROUP_BYTES_CONFIG,
            Type.LONG,
            COMPACT_MAX_GROUP_BYTES_DEFAULT,
            Range.atLeast(1024L * 1024),
            Importance.LOW,
            COMPACT_MAX_GROUP_BYTES_DOC,
            GROUP,
            ++order,
            Width.SHORT,
            "Compaction max group (bytes)")
        .define(
            COMPACT_SMALL_FILE_BYTES_CONFIG,
            Type.LONG,
            COMPACT_SMALL_FILE_BYTES_DEFAULT,
            Range.atLeast(1024L),
            Importance.LOW,
            COMPACT_SMALL_FILE_BYTES_DOC,
            GROUP,
            ++order,
            Width.SHORT,
            "Compaction small-file limit (bytes)")
        .define(
            COMPACT_DELETE_RATIO_CONFIG,
            Type.DOUBLE,
            COMPACT_DELETE_RATIO_DEFAULT,
            Range.between(0.0, 0.95),
            Importance.LOW,
            COMPACT_DELETE_RATIO_DOC,
            GROUP,
            ++order,
            Width.SHORT,
            "Compaction delete ratio")
        .define(
            ORPHANS_MIN_AGE_MS_CONFIG,
            Type.LONG,
            ORPHANS_MIN_AGE_MS_DEFAULT,
            Range.atLeast(0L),
            Importance.LOW,
            ORPHANS_MIN_AGE_MS_DOC,
            GROUP,
            ++order,
            Width.SHORT,
            "Orphan file min age (ms)");
  }
}
