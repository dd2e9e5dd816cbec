package io.streamhouse.connect.table.iceberg;

import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * Brings a keyed writer's index and its batch's pending deletes past snapshots an outside writer
 * made (merge-on-read updates and deletes, copy-on-write rewrites, {@code rewrite_data_files},
 * appends; see {@link ForeignSnapshots}) together with the connector's compactions between them, by
 * the keys of the data files they touched: the index forgets every file one of them removed or
 * deleted rows of, then reads the key columns of those still in the table and of those they added,
 * with the deletes applied. A key the writer's batch changed replaces whatever row the table now
 * holds for it, whoever wrote it: those rows join the batch's deletes. Any other key takes its row
 * from what was read; when the key has another live row, the outside writer's is kept as the newer
 * and the other is deleted by the next batch. The cost is a read of the touched and added files'
 * keys, not of the table: a batch that would otherwise be rejected commits.
 *
 * <p>Equality deletes cannot be followed by file: a snapshot with them leaves the index as it is,
 * and the coordinator rejects the batch (the task then reads its whole index again).
 */
final class ForeignCatchUp {
  /** Whether the writer's batch (not committed yet) changed a key: upsert or delete. */
  @FunctionalInterface
  interface BatchKeys {
    boolean changed(long[] key);
  }

  /** What a catch-up did: keys read, keys forgotten, rows the batch now deletes besides. */
  record Result(int filesRead, int forgotten, int read, int superseded) {}

  private ForeignCatchUp() {}

  /**
   * Moves {@code index} and {@code pending} (packed positions) to {@code current}, past {@code
   * snapshots} (oldest first: the outside writers' and the connector's compactions since the
   * index's snapshot). Empty, with nothing changed, when a snapshot has equality deletes.
   */
  static Optional<Result> apply(
      Table table,
      Snapshot current,
      List<Snapshot> snapshots,
      KeyIndex index,
      List<Long> pending,
      BatchKeys batch) {
    Set<String> touched = new HashSet<>();
    Set<String> added = new HashSet<>();
    for (Snapshot s : snapshots) {
      SnapshotChanges changes = SnapshotChanges.builderFor(table).snapshot(s).build();
      for (DataFile file : changes.removedDataFiles()) {
        touched.add(IcebergFileCheck.normalized(file.location()));
      }
      for (DataFile file : changes.addedDataFiles()) {
        added.add(IcebergFileCheck.normalized(file.location()));
      }
      for (DeleteFile file : changes.addedDeleteFiles()) {
        if (!dataFilesOf(table, file, touched)) {
          return Optional.empty();
        }
      }
      for (DeleteFile file : changes.removedDeleteFiles()) {
        if (!dataFilesOf(table, file, touched)) {
          return Optional.empty();
        }
      }
    }
    BitSet stale = new BitSet();
    for (int i = 0; i < index.fileCount(); i++) {
      if (touched.contains(IcebergFileCheck.normalized(index.file(i).location()))) {
        stale.set(i);
      }
    }
    // Whether a key is in the batch is asked before the index changes for it.
    int forgotten = index.dropFiles(stale);
    pending.removeIf(p -> stale.get(KeyIndex.fileOf(p)));
    int[] counts = new int[3];
    int before = index.fileCount();
    BitSet known = new BitSet();
    BitSet addedFiles = new BitSet();
    index.readFiles(
        table,
        current,
        location -> {
          String normalized = IcebergFileCheck.normalized(location);
          return touched.contains(normalized) || added.contains(normalized);
        },
        (key, packed, order) -> {
          counts[0]++;
          if (batch.changed(key)) {
            pending.add(index.supersede(key, packed, order)); // the older of the two rows goes
            counts[1]++;
          } else if (isAdded(index, KeyIndex.fileOf(packed), added, known, addedFiles)) {
            index.replace(
                key, packed, order); // an outside writer's row: newer than what the index had
          } else {
            index.place(key, packed, order);
          }
        });
    counts[2] = index.fileCount() - before;
    return Optional.of(new Result(counts[2], forgotten, counts[0], counts[1]));
  }

  /** Whether the index's file {@code ordinal} is one of {@code added}; asked once per file. */
  private static boolean isAdded(
      KeyIndex index, int ordinal, Set<String> added, BitSet known, BitSet addedFiles) {
    if (!known.get(ordinal)) {
      known.set(ordinal);
      if (added.contains(IcebergFileCheck.normalized(index.file(ordinal).location()))) {
        addedFiles.set(ordinal);
      }
    }
    return addedFiles.get(ordinal);
  }

  /**
   * Adds the data files whose rows {@code file} deletes to {@code into}: the one it names, or for a
   * position delete file that names none, the paths it holds. False for equality deletes.
   */
  private static boolean dataFilesOf(Table table, DeleteFile file, Set<String> into) {
    if (file.content() == FileContent.EQUALITY_DELETES) {
      return false;
    }
    String referenced = ContentFileUtil.referencedDataFileLocation(file);
    if (referenced != null) {
      into.add(IcebergFileCheck.normalized(referenced));
      return true;
    }
    FileScopedDeletes.positionsOf(table, List.of(file))
        .keySet()
        .forEach(path -> into.add(IcebergFileCheck.normalized(path)));
    return true;
  }
}
