package io.streamhouse.connect.table.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteJobOrder;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.actions.BinPackRewriteFilePlanner;
import org.apache.iceberg.actions.RewriteDataFiles;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.PropertyUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bin-pack compaction of an Iceberg table's small data files: Iceberg's {@link
 * BinPackRewriteFilePlanner} groups the small files of each partition from the current snapshot,
 * and each group, most files first, is rewritten into files of the target size and committed on its
 * own as a {@code replace} snapshot. The rewrite keeps the data sequence number of the snapshot it
 * was planned from and is validated from it, so appends committed meanwhile (the connector's or
 * anyone's) never conflict with it; a group whose files were deleted or given delete files
 * meanwhile fails alone, its new files are deleted, and the next run plans it again.
 *
 * <p>A replace snapshot carries no {@code streamhouse.*} summary key and moves no tag: the
 * connector's watermarks stay on its own latest append, which a walk of the ancestry still finds.
 *
 * <p>Data files with position deletes (a keyed table's position delete files or deletion vectors)
 * are rewritten with their deletes applied, and the deletion vectors and position delete files
 * whose data files are all rewritten by the group leave the table in the same commit ({@link
 * DeleteTargets}); with {@link Settings#deleteFileThreshold} 1 every data file with a delete is
 * rewritten, small or not (a primary-key table with many deleted rows). Data files with equality
 * deletes (another writer's) are left out of their group; what is left of the group is rewritten
 * only if it still has enough files.
 */
final class IcebergFileCompactor {
  private static final Logger LOG = LoggerFactory.getLogger(IcebergFileCompactor.class);

  /** Called after a group's files are written, just before its commit: a seam for tests. */
  @FunctionalInterface
  interface BeforeCommit {
    void run(Table table, List<DataFile> rewritten);
  }

  /**
   * What a compaction run may do.
   *
   * @param minInputFiles a partition's small files are compacted once it has this many (at least
   *     2), or more than a target file's worth of them
   * @param targetFileSizeBytes the size of the files written; null for the table's {@code
   *     write.target-file-size-bytes}. Files under three quarters of it count as small.
   * @param maxGroupBytes at most this many input bytes per group, one commit each: bounds the time
   *     of one group, and what is lost when its commit conflicts
   * @param maxGroupsPerRun at most this many groups are rewritten in one run
   * @param smallFileBytes files at or above this size never count as small (null: three quarters of
   *     the target only). Without it, a partition's compacted file is rewritten with every pass
   *     until it reaches three quarters of the target; with it, a pass rewrites at most this many
   *     bytes of earlier output per group.
   * @param deleteFileThreshold data files with at least this many delete files are rewritten
   *     whatever their size (null: never for their deletes alone)
   */
  record Settings(
      int minInputFiles,
      Long targetFileSizeBytes,
      long maxGroupBytes,
      int maxGroupsPerRun,
      Long smallFileBytes,
      Integer deleteFileThreshold) {
    static final Settings DEFAULTS = new Settings(5, null, 512L << 20, 10);

    Settings(int minInputFiles, Long targetFileSizeBytes, long maxGroupBytes, int maxGroupsPerRun) {
      this(minInputFiles, targetFileSizeBytes, maxGroupBytes, maxGroupsPerRun, null, null);
    }

    Settings {
      if (minInputFiles < 1) {
        throw new IllegalArgumentException("minInputFiles must be at least 1: " + minInputFiles);
      }
      if (targetFileSizeBytes != null && targetFileSizeBytes <= 0) {
        throw new IllegalArgumentException(
            "targetFileSizeBytes must be positive: " + targetFileSizeBytes);
      }
      if (maxGroupBytes <= 0) {
        throw new IllegalArgumentException("maxGroupBytes must be positive: " + maxGroupBytes);
      }
      if (smallFileBytes != null && smallFileBytes <= 0) {
        throw new IllegalArgumentException("smallFileBytes must be positive: " + smallFileBytes);
      }
      if (deleteFileThreshold != null && deleteFileThreshold < 1) {
        throw new IllegalArgumentException(
            "deleteFileThreshold must be at least 1: " + deleteFileThreshold);
      }
      if (maxGroupsPerRun < 0) {
        throw new IllegalArgumentException(
            "maxGroupsPerRun must not be negative: " + maxGroupsPerRun);
      }
    }

    Map<String, String> plannerOptions(Table table) {
      Map<String, String> options = new HashMap<>();
      options.put(BinPackRewriteFilePlanner.MIN_INPUT_FILES, Integer.toString(minInputFiles));
      options.put(
          BinPackRewriteFilePlanner.MAX_FILE_GROUP_SIZE_BYTES, Long.toString(maxGroupBytes));
      options.put(RewriteDataFiles.REWRITE_JOB_ORDER, RewriteJobOrder.FILES_DESC.orderName());
      if (targetFileSizeBytes != null) {
        options.put(
            BinPackRewriteFilePlanner.TARGET_FILE_SIZE_BYTES, Long.toString(targetFileSizeBytes));
      }
      if (deleteFileThreshold != null) {
        options.put(
            BinPackRewriteFilePlanner.DELETE_FILE_THRESHOLD, Integer.toString(deleteFileThreshold));
      }
      if (smallFileBytes != null) {
        long target =
            targetFileSizeBytes != null
                ? targetFileSizeBytes
                : PropertyUtil.propertyAsLong(
                    table.properties(),
                    TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
                    TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
        options.put(
            BinPackRewriteFilePlanner.MIN_FILE_SIZE_BYTES,
            Long.toString(Math.min(smallFileBytes, target * 3 / 4)));
      }
      return options;
    }
  }

  /**
   * What a run did.
   *
   * @param groupsRewritten groups committed
   * @param groupsConflicted groups whose commit conflicted with another writer's (their new files
   *     deleted; planned again by the next run)
   * @param groupsSkipped groups left alone: too few files without delete files, or files of an
   *     older partition spec
   * @param groupsUnknown groups whose commit state is unknown (their files kept; the run stopped)
   * @param filesRemoved data files replaced by committed groups
   * @param filesAdded data files committed in their place
   * @param bytesRewritten bytes of the replaced files
   * @param bytesWritten bytes of the files committed in their place
   * @param durationMs the run's time, planning included
   * @param liveDataFiles data files in the table's current snapshot at the end, -1 if unknown
   */
  record CompactionResult(
      int groupsRewritten,
      int groupsConflicted,
      int groupsSkipped,
      int groupsUnknown,
      int filesRemoved,
      int filesAdded,
      long bytesRewritten,
      long bytesWritten,
      long durationMs,
      long liveDataFiles) {

    /** This run and {@code next}, one after the other: the counts added, the later file count. */
    CompactionResult plus(CompactionResult next) {
      return new CompactionResult(
          groupsRewritten + next.groupsRewritten,
          groupsConflicted + next.groupsConflicted,
          groupsSkipped + next.groupsSkipped,
          groupsUnknown + next.groupsUnknown,
          filesRemoved + next.filesRemoved,
          filesAdded + next.filesAdded,
          bytesRewritten + next.bytesRewritten,
          bytesWritten + next.bytesWritten,
          durationMs + next.durationMs,
          next.liveDataFiles);
    }
  }

  private final IcebergGroupCommit groupCommit;

  IcebergFileCompactor() {
    this((table, rewritten) -> {});
  }

  IcebergFileCompactor(BeforeCommit beforeCommit) {
    this(beforeCommit, null);
  }

  /**
   * {@code rewriteMapKey}: write a {@link RewriteMap} per group next to the table's metadata and
   * name it under this key in the group's {@code replace} snapshot (keyed tables, whose writers
   * translate their key indexes with it); null for none.
   */
  IcebergFileCompactor(BeforeCommit beforeCommit, String rewriteMapKey) {
    this.groupCommit = new IcebergGroupCommit(beforeCommit, rewriteMapKey);
  }

  /**
   * Compacts {@code table} from its latest snapshot, one group at a time, starting no group once
   * {@link System#nanoTime()} reaches {@code deadlineNanos} (a started group runs to its commit; a
   * group is bounded by {@link Settings#maxGroupBytes}).
   */
  CompactionResult compact(Table table, Settings settings, long deadlineNanos) {
    long started = System.nanoTime();
    Run run = new Run();
    table.refresh();
    Snapshot start = table.currentSnapshot();
    if (start != null && !reached(deadlineNanos) && settings.maxGroupsPerRun() > 0) {
      BinPackRewriteFilePlanner planner =
          new BinPackRewriteFilePlanner(
              CallerThread.scanning(table), Expressions.alwaysTrue(), start.snapshotId(), false);
      planner.init(settings.plannerOptions(table));
      IcebergGroupRewriter rewriter = new IcebergGroupRewriter(table);
      PartitionSpec spec = table.spec();
      DeleteTargets deleteTargets = DeleteTargets.of(table, start);
      try (CloseableIterable<RewriteFileGroup> groups = planner.plan().groups()) {
        for (RewriteFileGroup group : groups) {
          if (run.started() >= settings.maxGroupsPerRun()
              || reached(deadlineNanos)
              || run.groupsUnknown > 0) {
            break;
          }
          List<FileScanTask> tasks = rewritable(group, spec, settings);
          if (tasks.isEmpty()) {
            run.groupsSkipped++;
            continue;
          }
          groupCommit.rewrite(table, start, spec, rewriter, deleteTargets, group, tasks, run);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot close the compaction plan of " + table.name(), e);
      }
    }
    table.refresh();
    return run.result((System.nanoTime() - started) / 1_000_000, liveDataFiles(table));
  }

  private static boolean reached(long deadlineNanos) {
    return System.nanoTime() - deadlineNanos >= 0;
  }

  /**
   * The group's files this compactor can rewrite: those of the current partition spec (any spec if
   * the table is unpartitioned now) with no equality deletes; none if fewer than the planner chose
   * are left and they are too few.
   */
  private static List<FileScanTask> rewritable(
      RewriteFileGroup group, PartitionSpec spec, Settings settings) {
    List<FileScanTask> tasks = new ArrayList<>();
    for (FileScanTask task : group.fileScanTasks()) {
      boolean sameSpec = spec.isUnpartitioned() || task.file().specId() == spec.specId();
      boolean byPosition =
          task.deletes().stream().allMatch(d -> d.content() == FileContent.POSITION_DELETES);
      if (sameSpec && byPosition) {
        tasks.add(task);
      }
    }
    if (tasks.size() < group.fileScanTasks().size()
        && tasks.size() < Math.max(2, settings.minInputFiles())) {
      return List.of();
    }
    return tasks;
  }

  /**
   * Data files in the table's current snapshot, from the summary Iceberg keeps for every snapshot
   * it writes: 0 without a snapshot, -1 when the summary does not say (or says nonsense).
   */
  static long liveDataFiles(Table table) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return 0;
    }
    String total =
        current.summary() == null
            ? null
            : current.summary().get(SnapshotSummary.TOTAL_DATA_FILES_PROP);
    try {
      return total == null ? -1 : Long.parseLong(total);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The counts of one run. */
  static final class Run {
    int groupsRewritten;
    int groupsConflicted;
    int groupsSkipped;
    int groupsUnknown;
    int filesRemoved;
    int filesAdded;
    long bytesRewritten;
    long bytesWritten;

    int started() {
      return groupsRewritten + groupsConflicted + groupsUnknown;
    }

    CompactionResult result(long durationMs, long liveDataFiles) {
      return new CompactionResult(
          groupsRewritten,
          groupsConflicted,
          groupsSkipped,
          groupsUnknown,
          filesRemoved,
          filesAdded,
          bytesRewritten,
          bytesWritten,
          durationMs,
          liveDataFiles);
    }
  }
}
