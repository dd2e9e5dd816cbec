package io.streamhouse.connect.table.iceberg;

import java.util.List;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One group of an {@link IcebergFileCompactor} run, rewritten and committed on its own: the group's
 * files are written by the {@link IcebergGroupRewriter}, its {@link RewriteMap} beside the table's
 * metadata when asked for, and the {@code replace} snapshot keeps the data sequence number of the
 * snapshot the group was planned from. A conflict fails the group alone: its new files and map are
 * deleted, so nothing uncommitted is left behind, and the next run plans it again.
 */
final class IcebergGroupCommit {
  // The compactor's logger: operators and log checks read these lines as its own.
  private static final Logger LOG = LoggerFactory.getLogger(IcebergFileCompactor.class);

  private final IcebergFileCompactor.BeforeCommit beforeCommit;

  /** The summary key that names each group's {@link RewriteMap}; null: no maps written. */
  private final String rewriteMapKey;

  IcebergGroupCommit(IcebergFileCompactor.BeforeCommit beforeCommit, String rewriteMapKey) {
    this.beforeCommit = beforeCommit;
    this.rewriteMapKey = rewriteMapKey;
  }

  /**
   * Rewrites the files of {@code tasks} (those of {@code group} the compactor can rewrite) and
   * commits them as one {@code replace} snapshot validated from {@code start}, with the delete
   * files that only they referenced ({@code deleteTargets}); counts what became of the group in
   * {@code run}.
   */
  void rewrite(
      Table table,
      Snapshot start,
      PartitionSpec spec,
      IcebergGroupRewriter rewriter,
      DeleteTargets deleteTargets,
      RewriteFileGroup group,
      List<FileScanTask> tasks,
      IcebergFileCompactor.Run run) {
    List<DataFile> rewritten = tasks.stream().map(FileScanTask::file).toList();
    IcebergGroupRewriter.Rewritten result =
        rewriter.rewrite(tasks, spec, rewritten.get(0).partition(), group.maxOutputFileSize());
    List<DataFile> written = result.files();
    String mapLocation = null;
    if (rewriteMapKey != null) {
      String metadata =
          table
              .properties()
              .getOrDefault(
                  TableProperties.WRITE_METADATA_LOCATION,
                  table.location().replaceAll("/+$", "") + "/metadata");
      // Beside the metadata files: the orphan cleanup removes it once no reader needs it.
      mapLocation = metadata + "/streamhouse-rewrite-" + UUID.randomUUID() + ".bin";
      try {
        result.map().write(table.io().newOutputFile(mapLocation));
      } catch (RuntimeException e) {
        delete(table, written);
        throw e;
      }
    }
    RewriteFiles rewrite =
        CallerThread.manifests(table.newRewrite())
            .validateFromSnapshot(start.snapshotId())
            .dataSequenceNumber(start.sequenceNumber());
    rewritten.forEach(rewrite::deleteFile);
    deleteTargets
        .consumedBy(rewritten.stream().map(DataFile::location).toList(), tasks)
        .forEach(rewrite::deleteFile);
    written.forEach(rewrite::addFile);
    if (mapLocation != null) {
      rewrite.set(rewriteMapKey, mapLocation);
    }
    try {
      beforeCommit.run(table, rewritten);
      rewrite.commit();
    } catch (ValidationException | CommitFailedException conflict) {
      LOG.info(
          "Compaction of {} files of {} conflicted with another commit, left for the next run: {}",
          rewritten.size(),
          table.name(),
          conflict.getMessage());
      delete(table, written);
      deleteMap(table, mapLocation);
      run.groupsConflicted++;
      return;
    } catch (CommitStateUnknownException unknown) {
      // The files may be in the table now: they stay (at worst orphans).
      LOG.warn(
          "Compaction of {} files of {}: commit state unknown, the run stops: {}",
          rewritten.size(),
          table.name(),
          unknown.getMessage());
      run.groupsUnknown++;
      return;
    } catch (RuntimeException e) {
      delete(table, written);
      deleteMap(table, mapLocation);
      throw e;
    }
    run.groupsRewritten++;
    run.filesRemoved += rewritten.size();
    run.filesAdded += written.size();
    run.bytesRewritten += rewritten.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    run.bytesWritten += written.stream().mapToLong(DataFile::fileSizeInBytes).sum();
  }

  private static void deleteMap(Table table, String location) {
    if (location != null) {
      try {
        table.io().deleteFile(location);
      } catch (RuntimeException e) {
        LOG.warn("Could not delete uncommitted rewrite map {}: {}", location, e.toString());
      }
    }
  }

  private static void delete(Table table, List<DataFile> files) {
    for (DataFile file : files) {
      try {
        table.io().deleteFile(file.location());
      } catch (RuntimeException e) {
        LOG.warn("Could not delete uncommitted file {}: {}", file.location(), e.toString());
      }
    }
  }
}
