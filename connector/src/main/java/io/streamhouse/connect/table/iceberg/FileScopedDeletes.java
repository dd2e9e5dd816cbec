package io.streamhouse.connect.table.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.DeleteGranularity;
import org.apache.iceberg.deletes.Deletes;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.FanoutPositionOnlyDeleteWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.ContentFileUtil;

/**
 * The coordinator writes a keyed table's deletes, one delete file per data file: the tasks send the
 * positions their batches delete as position delete files (a transport, never committed), and one
 * commit turns them into one delete file per data file they point into, merged with the data file's
 * current one, which the new one replaces in the same commit. On format v3 that file is the data
 * file's deletion vector (the spec allows one per data file); on format v2 it is a position delete
 * file that names only that data file (file-scoped), so a reader of a data file opens one delete
 * file, not every position delete file of its partition since the last compaction. Only the
 * coordinator writes them, so two tasks deleting rows of one data file in one round (a file written
 * before a rebalance holds rows of partitions now owned by different tasks) still make one.
 */
final class FileScopedDeletes {
  /**
   * The delete files to add, the delete files they replace, and the data files the positions point
   * into (after {@code moves}); or, when some batches delete rows that are deleted already, why, by
   * batch id (nothing is written then).
   */
  record Merged(
      List<DeleteFile> added,
      List<DeleteFile> replaced,
      Set<String> referenced,
      Map<String, String> stale) {}

  private FileScopedDeletes() {}

  /**
   * Merges the positions of {@code transport} that point into {@code referenced} data files (the
   * files of {@code current}, or of {@code added} in this commit) with their current file-scoped
   * deletes. Positions into files a compaction of {@code moves} (oldest first) rewrote move to the
   * rows' new places first; a batch with a position whose row the compaction dropped (deleted since
   * its index was read, by another writer whose change of the key the batch would leave live) is
   * stale too. Empty when a referenced data file is in neither (removed since the batch was
   * checked: the caller plans again). A batch ({@code transport} holds each batch's files) that
   * deletes a row the table deleted already is stale: its writer's index did not know the table (a
   * key that came from two Kafka partitions, an index older than another writer's commit), and
   * folding its positions in would leave the key's other row live; it is named in {@link
   * Merged#stale()} instead.
   */
  static Optional<Merged> merge(
      Table table,
      Snapshot current,
      Collection<String> referencedBefore,
      Map<String, List<DeleteFile>> transport,
      Map<String, Long> writers,
      List<DataFile> added,
      List<RewriteMap> moves) {
    Map<String, Map<String, PositionDeleteIndex>> byBatch = new java.util.LinkedHashMap<>();
    Map<String, String> stale = new java.util.LinkedHashMap<>();
    for (Map.Entry<String, List<DeleteFile>> e : transport.entrySet()) {
      Map<String, PositionDeleteIndex> batch = positionsOf(table, e.getValue());
      List<String> dropped = new ArrayList<>(1);
      for (RewriteMap map : moves) {
        batch = moved(batch, map, dropped);
      }
      if (!dropped.isEmpty()) {
        // Deleted since the batch's index was read, and the key may have a new row of that
        // writer's: folding the rest in could leave two rows of the key.
        stale.put(
            e.getKey(),
            "it deletes "
                + dropped.get(0)
                + ", which a compaction since its key index was read dropped as deleted already"
                + " (another writer changed its key)");
      }
      byBatch.put(e.getKey(), batch);
    }
    Map<String, PositionDeleteIndex> positions = new HashMap<>();
    byBatch
        .values()
        .forEach(
            batch ->
                batch.forEach(
                    (path, index) -> {
                      PositionDeleteIndex known = positions.putIfAbsent(path, copy(index));
                      if (known != null) {
                        known.merge(index);
                      }
                    }));
    Set<String> referenced = new LinkedHashSet<>();
    for (String path : referencedBefore) {
      if (moves.stream().noneMatch(m -> m.rewrote(path))) {
        referenced.add(path);
      }
    }
    referenced.addAll(positions.keySet());
    Map<String, DataFile> dataFiles = new HashMap<>();
    added.forEach(f -> dataFiles.put(f.location(), f));
    boolean vectors = TableUtil.formatVersion(table) >= 3;
    Map<String, List<DeleteFile>> previous = new HashMap<>();
    Map<String, List<DeleteFile>> partitionScoped = new HashMap<>();
    if (current != null) {
      try (CloseableIterable<FileScanTask> tasks =
          CallerThread.scan(table, current.snapshotId()).planFiles()) {
        for (FileScanTask task : tasks) {
          String location = task.file().location();
          if (referenced.contains(location)) {
            dataFiles.put(location, task.file());
            for (DeleteFile delete : task.deletes()) {
              if (location.equals(ContentFileUtil.referencedDataFileLocation(delete))) {
                previous.computeIfAbsent(location, l -> new ArrayList<>()).add(delete);
              } else if (delete.content() == org.apache.iceberg.FileContent.POSITION_DELETES) {
                // Another writer's position deletes of the whole partition (or a table upgraded
                // from v2): they apply to this file too.
                partitionScoped.computeIfAbsent(location, l -> new ArrayList<>()).add(delete);
              }
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot plan the files of table " + table.name(), e);
      }
    }
    for (String path : referenced) {
      if (!dataFiles.containsKey(path)) {
        return Optional.empty();
      }
    }
    BaseDeleteLoader loader = new BaseDeleteLoader(f -> table.io().newInputFile(f));
    Map<String, PositionDeleteIndex> scoped = new HashMap<>();
    Map<String, PositionDeleteIndex> applied = new HashMap<>();
    for (String path : positions.keySet()) {
      List<DeleteFile> own = previous.get(path);
      List<DeleteFile> others = partitionScoped.get(path);
      PositionDeleteIndex fileScoped = own == null ? null : loader.loadPositionDeletes(own, path);
      if (fileScoped != null) {
        scoped.put(path, fileScoped);
      }
      if (others == null) {
        if (fileScoped != null) {
          applied.put(path, fileScoped);
        }
      } else {
        List<DeleteFile> all = new ArrayList<>(others);
        if (own != null) {
          all.addAll(own);
        }
        applied.put(path, loader.loadPositionDeletes(all, path));
      }
    }
    StalePositions.of(byBatch, writers, applied).forEach(stale::putIfAbsent);
    if (!stale.isEmpty()) {
      return Optional.of(new Merged(List.of(), List.of(), referenced, stale));
    }
    DeleteWriteResult result =
        vectors
            // A data file's deletion vector makes readers ignore its position delete files: it
            // takes in those of the partition too (only file-scoped ones leave the table).
            ? writeVectors(table, referenced, dataFiles, positions, p -> applied.get(p.toString()))
            : writePositionDeletes(
                table, referenced, dataFiles, positions, p -> scoped.get(p.toString()));
    return Optional.of(
        new Merged(result.deleteFiles(), result.rewrittenDeleteFiles(), referenced, Map.of()));
  }

  private static PositionDeleteIndex copy(PositionDeleteIndex index) {
    PositionDeleteIndex copy =
        Deletes.toPositionIndex(CloseableIterable.withNoopClose(List.<Long>of()));
    copy.merge(index);
    return copy;
  }

  private static DeleteWriteResult writeVectors(
      Table table,
      Collection<String> referenced,
      Map<String, DataFile> dataFiles,
      Map<String, PositionDeleteIndex> positions,
      Function<CharSequence, PositionDeleteIndex> loadPrevious) {
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 0, System.currentTimeMillis())
            .format(FileFormat.PUFFIN)
            .operationId("dv-" + UUID.randomUUID())
            .build();
    BaseDVFileWriter writer = new BaseDVFileWriter(files, path -> loadPrevious.apply(path));
    try (writer) {
      forEachDeleted(table, referenced, dataFiles, positions, writer::delete);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot write the deletion vectors of table " + table.name(), e);
    }
    return writer.result();
  }

  /** Format v2: one sorted position delete file per data file, its previous positions included. */
  private static DeleteWriteResult writePositionDeletes(
      Table table,
      Collection<String> referenced,
      Map<String, DataFile> dataFiles,
      Map<String, PositionDeleteIndex> positions,
      Function<CharSequence, PositionDeleteIndex> loadPrevious) {
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 0, System.currentTimeMillis())
            .format(DataWriterFactories.fileFormat(table))
            .operationId("deletes-" + UUID.randomUUID())
            .build();
    FanoutPositionOnlyDeleteWriter<Record> writer =
        new FanoutPositionOnlyDeleteWriter<>(
            DataWriterFactories.forTable(table),
            files,
            table.io(),
            Long.MAX_VALUE, // one file per data file, whatever its size
            DeleteGranularity.FILE,
            loadPrevious);
    PositionDelete<Record> delete = PositionDelete.create();
    try (writer) {
      forEachDeleted(
          table,
          referenced,
          dataFiles,
          positions,
          (path, deleted, spec, partition) ->
              deleted.forEach(pos -> writer.write(delete.set(path, pos), spec, partition)));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot write the position deletes of table " + table.name(), e);
    }
    return writer.result();
  }

  /** Writes the deleted positions of one data file into a delete writer. */
  @FunctionalInterface
  private interface DeleteStep {
    void delete(String path, PositionDeleteIndex deleted, PartitionSpec spec, StructLike partition);
  }

  /**
   * Each referenced data file with deleted positions, in path order, with its spec and partition.
   */
  private static void forEachDeleted(
      Table table,
      Collection<String> referenced,
      Map<String, DataFile> dataFiles,
      Map<String, PositionDeleteIndex> positions,
      DeleteStep step) {
    for (String path : new TreeSet<>(referenced)) {
      DataFile data = dataFiles.get(path);
      PositionDeleteIndex deleted = positions.get(path);
      if (deleted != null && deleted.isNotEmpty()) {
        step.delete(path, deleted, table.specs().get(data.specId()), data.partition());
      }
    }
  }

  /**
   * {@code positions} with those into files {@code map} rewrote moved to the rows' new places; a
   * position whose row the rewrite dropped is named in {@code dropped}.
   */
  private static Map<String, PositionDeleteIndex> moved(
      Map<String, PositionDeleteIndex> positions, RewriteMap map, List<String> dropped) {
    Map<String, PositionDeleteIndex> result = new HashMap<>();
    Map<String, List<Long>> arriving = new HashMap<>();
    positions.forEach(
        (path, index) -> {
          if (!map.rewrote(path)) {
            result.put(path, index);
            return;
          }
          index.forEach(
              pos -> {
                Optional<RewriteMap.Place> place = map.placeOf(path, pos);
                if (place.isEmpty()) {
                  dropped.add("row " + pos + " of data file " + path);
                } else {
                  arriving
                      .computeIfAbsent(place.get().location(), l -> new ArrayList<>())
                      .add(place.get().position());
                }
              });
        });
    arriving.forEach(
        (path, list) -> {
          PositionDeleteIndex index =
              Deletes.toPositionIndex(CloseableIterable.withNoopClose(list));
          PositionDeleteIndex known = result.putIfAbsent(path, index);
          if (known != null) {
            known.merge(index);
          }
        });
    return result;
  }

  /** The positions in {@code transport}, by data file; each file is read once. */
  static Map<String, PositionDeleteIndex> positionsOf(Table table, List<DeleteFile> transport) {
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
