package io.streamhouse.connect.table.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.Deletes;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * On a format-v3 table the coordinator writes the deletion vectors: the tasks send the positions
 * their batches delete as position delete files (a transport, never committed), and one commit
 * turns them into one deletion vector per data file, merged with the vector the data file has in
 * the current snapshot, which the new one replaces in the same commit (the spec allows one vector
 * per data file). Only the coordinator writes vectors, so two tasks deleting rows of one data file
 * in one round (a file written before a rebalance holds rows of partitions now owned by different
 * tasks) still make one vector.
 */
final class DeletionVectors {
  /** The vectors to add and the vectors they replace. */
  record Merged(List<DeleteFile> added, List<DeleteFile> replaced) {}

  private DeletionVectors() {}

  /**
   * Merges the positions of {@code transport} that point into {@code referenced} data files (the
   * files of {@code current}, or of {@code added} in this commit) with their current vectors. Empty
   * when a referenced data file is in neither (removed since the batch was checked: the caller
   * plans again).
   */
  static Optional<Merged> merge(
      Table table,
      Snapshot current,
      Collection<String> referenced,
      List<DeleteFile> transport,
      List<DataFile> added) {
    Map<String, DataFile> dataFiles = new HashMap<>();
    added.forEach(f -> dataFiles.put(f.location(), f));
    Map<String, DeleteFile> vectors = new HashMap<>();
    if (current != null) {
      try (CloseableIterable<FileScanTask> tasks =
          table.newScan().useSnapshot(current.snapshotId()).planFiles()) {
        for (FileScanTask task : tasks) {
          String location = task.file().location();
          if (referenced.contains(location)) {
            dataFiles.put(location, task.file());
            for (DeleteFile delete : task.deletes()) {
              if (delete.format() == FileFormat.PUFFIN) {
                vectors.put(location, delete);
              }
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot plan the files of table " + table.name(), e);
      }
    }
    BaseDeleteLoader loader = new BaseDeleteLoader(f -> table.io().newInputFile(f));
    Map<String, PositionDeleteIndex> positions = positionsOf(table, transport);
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 0, System.currentTimeMillis())
            .format(FileFormat.PUFFIN)
            .operationId("dv-" + UUID.randomUUID())
            .build();
    BaseDVFileWriter writer =
        new BaseDVFileWriter(
            files,
            path -> {
              DeleteFile vector = vectors.get(path);
              return vector == null ? null : loader.loadPositionDeletes(List.of(vector), path);
            });
    try (writer) {
      for (String path : referenced) {
        DataFile data = dataFiles.get(path);
        if (data == null) {
          return Optional.empty();
        }
        PositionDeleteIndex deleted = positions.get(path);
        if (deleted != null && deleted.isNotEmpty()) {
          writer.delete(path, deleted, table.specs().get(data.specId()), data.partition());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot write the deletion vectors of table " + table.name(), e);
    }
    DeleteWriteResult result = writer.result();
    return Optional.of(new Merged(result.deleteFiles(), result.rewrittenDeleteFiles()));
  }

  /** The positions in {@code transport}, by data file; each file is read once. */
  private static Map<String, PositionDeleteIndex> positionsOf(
      Table table, List<DeleteFile> transport) {
    Map<String, PositionDeleteIndex> all = new HashMap<>();
    for (DeleteFile file : transport) {
      try (CloseableIterable<Record> rows =
          FormatModelRegistry.<Record, Object>readBuilder(
                  file.format(), Record.class, table.io().newInputFile(file))
              .project(DeleteSchemaUtil.pathPosSchema())
              .build()) {
        Deletes.toPositionIndexes(rows)
            .forEach(
                (path, index) -> {
                  PositionDeleteIndex known = all.putIfAbsent(path.toString(), index);
                  if (known != null) {
                    known.merge(index);
                  }
                });
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Cannot read position delete file " + file.location() + " of " + table.name(), e);
      }
    }
    return all;
  }
}
