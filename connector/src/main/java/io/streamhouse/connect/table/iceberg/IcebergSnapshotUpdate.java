package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.table.CheckedBatches;
import io.streamhouse.connect.table.CommitLoop;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotAncestryValidator;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.exceptions.ValidationException;

/**
 * The snapshot one commit makes, in a transaction: an append when the batches only add data files,
 * a row delta when keyed batches delete rows by position. The row delta validates, against every
 * commit since the snapshot the coordinator planned on, that the data files its deletes point into
 * still exist (the planner checked the history before that, {@link KeyedBatchCheck}).
 */
final class IcebergSnapshotUpdate {
  private final SnapshotUpdate<?> update;
  private final boolean keyed;
  private final long records;
  private final int files;

  private final List<DeleteFile> transport;

  private IcebergSnapshotUpdate(
      SnapshotUpdate<?> update,
      boolean keyed,
      long records,
      int files,
      List<DeleteFile> transport) {
    this.update = update;
    this.keyed = keyed;
    this.records = records;
    this.files = files;
    this.transport = transport;
  }

  /**
   * The update of {@code applying} on {@code table} (refreshed; its current snapshot is the one the
   * commit planned on).
   *
   * @throws CommitLoop.ConcurrentCommitException when a data file the deletes point into is gone
   */
  static IcebergSnapshotUpdate of(
      Table table,
      Transaction transaction,
      List<OfferedBatch> applying,
      CheckedBatches<ContentFile<?>> checked,
      Map<String, KeyedFilesCodec.KeyedFiles> keyed,
      List<RewriteMap> moves)
      throws CommitLoop.ConcurrentCommitException {
    Snapshot current = table.currentSnapshot();
    List<DataFile> data = new ArrayList<>();
    List<DeleteFile> deletes = new ArrayList<>();
    Map<String, List<DeleteFile>> byBatch = new java.util.LinkedHashMap<>();
    Map<String, Long> writers = new java.util.HashMap<>();
    List<String> referenced = new ArrayList<>();
    boolean anyKeyed = false;
    for (OfferedBatch batch : applying) {
      for (ContentFile<?> file : checked.files(batch.batchId())) {
        if (file instanceof DataFile dataFile) {
          data.add(dataFile);
        } else {
          deletes.add((DeleteFile) file);
          byBatch.computeIfAbsent(batch.batchId(), b -> new ArrayList<>()).add((DeleteFile) file);
        }
      }
      KeyedFilesCodec.KeyedFiles files = keyed.get(batch.batchId());
      if (files != null) {
        anyKeyed = true;
        writers.put(batch.batchId(), files.writer());
        referenced.addAll(files.referenced());
      }
    }
    long records = data.stream().mapToLong(DataFile::recordCount).sum();
    int count = data.size() + deletes.size(); // v3: the vectors replace the deletes' count
    // Manifest reads and writes run on the committer thread: Iceberg's worker pool polls its
    // futures with a 10 ms sleep, about 30 ms per commit of a few files.
    if (deletes.isEmpty()) {
      AppendFiles append = CallerThread.manifests(transaction.newAppend());
      data.forEach(append::appendFile);
      return new IcebergSnapshotUpdate(append, anyKeyed, records, count, List.of());
    }
    RowDelta delta = CallerThread.manifests(transaction.newRowDelta());
    data.forEach(delta::addRows);
    // The tasks' position delete files carry the positions; the table gets one delete file per
    // data file (a deletion vector on v3, a file-scoped position delete file on v2).
    FileScopedDeletes.Merged merged =
        FileScopedDeletes.merge(
                table, current, new LinkedHashSet<>(referenced), byBatch, writers, data, moves)
            .orElseThrow(
                () ->
                    new CommitLoop.ConcurrentCommitException(
                        "a data file the deletes point into is no longer in table " + table.name(),
                        null));
    if (!merged.stale().isEmpty()) {
      throw new StaleBatchesException(merged.stale());
    }
    merged.added().forEach(delta::addDeletes);
    merged.replaced().forEach(delta::removeDeletes);
    delta.validateDeletedFiles().validateNoConflictingDeleteFiles();
    List<DeleteFile> transport = deletes;
    count = data.size() + merged.added().size();
    if (current != null) {
      delta.validateFromSnapshot(current.snapshotId());
    }
    if (!merged.referenced().isEmpty()) {
      delta.validateDataFilesExist(merged.referenced());
    }
    return new IcebergSnapshotUpdate(delta, true, records, count, transport);
  }

  /**
   * Batches whose deletes name rows the table deleted already: the commit refuses them in its next
   * attempt ({@link IcebergCommit}), and their tasks read their indexes again.
   */
  static final class StaleBatchesException extends CommitLoop.ConcurrentCommitException {
    private static final long serialVersionUID = 1L;
    private final transient Map<String, String> reasons;

    StaleBatchesException(Map<String, String> reasons) {
      super("keyed batches delete rows that are deleted already: " + reasons, null);
      this.reasons = Map.copyOf(reasons);
    }

    /** Why, by batch id. */
    Map<String, String> reasons() {
      return reasons;
    }
  }

  /**
   * Position delete files that only carried positions to the coordinator: in no snapshot, to delete
   * once the commit is done.
   */
  List<DeleteFile> transport() {
    return transport;
  }

  /** Whether a keyed batch is in it: the snapshot then records the key writers. */
  boolean keyed() {
    return keyed;
  }

  long records() {
    return records;
  }

  int files() {
    return files;
  }

  /**
   * Commits the update into its transaction with {@code summary}, checked by {@code validator}.
   *
   * @throws CommitLoop.ConcurrentCommitException when a concurrent commit fails a validation
   */
  void commit(Map<String, String> summary, SnapshotAncestryValidator validator)
      throws CommitLoop.ConcurrentCommitException {
    summary.forEach(update::set);
    update.validateWith(validator);
    try {
      update.commit();
    } catch (ValidationException concurrent) {
      throw new CommitLoop.ConcurrentCommitException(concurrent.getMessage(), concurrent);
    }
  }
}
