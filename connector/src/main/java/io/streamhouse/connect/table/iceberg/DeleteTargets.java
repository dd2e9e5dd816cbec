package io.streamhouse.connect.table.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Which data files each position delete file of a snapshot may apply to, as Iceberg's own scan
 * planning matches them (partition, sequence number, path bounds): a position delete file whose
 * data files are all rewritten deletes nothing afterwards, so a rewrite drops it in the same
 * commit. Without this, a format-v2 primary-key table's position delete files (one per partition
 * and commit, pointing into many data files) would stay on the table for every reader to open.
 */
final class DeleteTargets {
  private static final DeleteTargets NONE = new DeleteTargets(Map.of(), Map.of());

  private final Map<String, DeleteFile> deletes;
  private final Map<String, Set<String>> targets;

  private DeleteTargets(Map<String, DeleteFile> deletes, Map<String, Set<String>> targets) {
    this.deletes = deletes;
    this.targets = targets;
  }

  /** The targets in {@code snapshot} of {@code table}; none read when it has no delete files. */
  static DeleteTargets of(Table table, Snapshot snapshot) {
    String count =
        snapshot.summary() == null
            ? null
            : snapshot.summary().get(SnapshotSummary.TOTAL_DELETE_FILES_PROP);
    if ("0".equals(count)) {
      return NONE;
    }
    Map<String, DeleteFile> deletes = new LinkedHashMap<>();
    Map<String, Set<String>> targets = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks =
        CallerThread.scan(table, snapshot.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        for (DeleteFile delete : task.deletes()) {
          if (delete.content() == FileContent.POSITION_DELETES
              && ContentFileUtil.referencedDataFileLocation(delete) == null) {
            deletes.putIfAbsent(delete.location(), delete);
            targets
                .computeIfAbsent(delete.location(), d -> new HashSet<>())
                .add(task.file().location());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot plan the files of " + table.name(), e);
    }
    return new DeleteTargets(deletes, targets);
  }

  /**
   * The position delete files of {@code tasks} whose data files are all in {@code rewritten}: they
   * delete nothing once the rewrite commits.
   */
  List<DeleteFile> consumedBy(Collection<String> rewritten, List<FileScanTask> tasks) {
    Set<String> gone = new HashSet<>(rewritten);
    List<DeleteFile> consumed = new ArrayList<>();
    Set<String> wide = new HashSet<>();
    for (FileScanTask task : tasks) {
      for (DeleteFile delete : task.deletes()) {
        if (delete.content() != FileContent.POSITION_DELETES) {
          continue;
        }
        String target = ContentFileUtil.referencedDataFileLocation(delete);
        if (target != null) {
          if (target.equals(task.file().location()) && gone.contains(target)) {
            consumed.add(delete); // listed once: with the one data file it names
          }
        } else {
          Set<String> into = targets.get(delete.location());
          if (into != null && gone.containsAll(into) && wide.add(delete.location())) {
            consumed.add(deletes.get(delete.location()));
          }
        }
      }
    }
    return consumed;
  }
}
