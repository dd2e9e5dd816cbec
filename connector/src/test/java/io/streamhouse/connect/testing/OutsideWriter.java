package io.streamhouse.connect.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;

/**
 * Another engine writing a keyed table (key {@code id}, a string column {@code name}) with
 * Iceberg's own Java API, as Spark or Trino would: merge-on-read updates and deletes ({@link
 * RowDelta} with new data files and position deletes: partition-scoped position delete files on
 * format v2, deletion vectors merged with the file's current one on v3), appends of a second row of
 * a key, copy-on-write rewrites and {@code rewrite_data_files} ({@link RewriteFiles}). None of its
 * snapshots carries the connector's summary keys.
 */
public final class OutsideWriter {
  /** A live row: where it is and what it holds. */
  public record Row(DataFile file, long pos, Record record) {
    public long id() {
      return (Long) record.getField("id");
    }
  }

  private final Table table;

  /** The snapshot {@link #liveRows()} read: commits validate against what came after it. */
  private org.apache.iceberg.Snapshot read;

  public OutsideWriter(Table table) {
    this.table = table;
  }

  /** Every live row of the table, with the deletes applied. */
  public List<Row> liveRows() {
    table.refresh();
    read = table.currentSnapshot();
    List<Row> rows = new ArrayList<>();
    if (read == null) {
      return rows;
    }
    List<Types.NestedField> columns = new ArrayList<>(table.schema().columns());
    columns.add(MetadataColumns.ROW_POSITION);
    Schema requested = new Schema(columns);
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(read.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        GenericDeleteFilter deletes =
            new GenericDeleteFilter(table.io(), task, table.schema(), requested);
        Map<Integer, ?> constants =
            PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
        try (CloseableIterable<Record> read =
            deletes.filter(
                FormatModelRegistry.<Record, Object>readBuilder(
                        task.file().format(), Record.class, table.io().newInputFile(task.file()))
                    .project(deletes.requiredSchema())
                    .idToConstant(constants)
                    .build())) {
          for (Record r : read) {
            rows.add(new Row(task.file(), (Long) r.getField("_pos"), r.copy()));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /**
   * A merge-on-read {@code UPDATE ... SET name = ? WHERE id = ?} per entry: every live row of each
   * id is deleted and added again with the new name (ids without a live row change nothing).
   * Returns the ids it changed.
   */
  public Set<Long> update(Map<Long, String> names) {
    List<Row> old = liveRows().stream().filter(r -> names.containsKey(r.id())).toList();
    List<Record> added = new ArrayList<>();
    Set<Long> changed = new java.util.TreeSet<>();
    for (Row r : old) {
      Record row = r.record().copy();
      row.setField("name", names.get(r.id()));
      added.add(row);
      changed.add(r.id());
    }
    rowDelta(old, added);
    return changed;
  }

  /** A merge-on-read {@code DELETE} of every live row of {@code ids}. */
  public void delete(Set<Long> ids) {
    rowDelta(liveRows().stream().filter(r -> ids.contains(r.id())).toList(), List.of());
  }

  /**
   * An {@code INSERT} of a second row of keys the table holds (a copy of each one's live row with
   * the new name): the table then holds those keys twice, as an engine without primary keys lets
   * it. Returns the ids it inserted.
   */
  public Set<Long> insertAgain(Map<Long, String> names) {
    List<Record> added = new ArrayList<>();
    Set<Long> inserted = new java.util.TreeSet<>();
    for (Row r : liveRows()) {
      if (names.containsKey(r.id()) && inserted.add(r.id())) {
        Record row = r.record().copy();
        row.setField("name", names.get(r.id()));
        added.add(row);
      }
    }
    var append = table.newAppend();
    writeData(added).forEach(append::appendFile);
    append.commit();
    return inserted;
  }

  /**
   * A copy-on-write {@code UPDATE}: every data file holding a row of {@code names} is replaced by
   * one with its live rows, those rows changed.
   */
  public void copyOnWrite(Map<Long, String> names) {
    List<Row> live = liveRows();
    Set<String> files = new java.util.HashSet<>();
    live.stream()
        .filter(r -> names.containsKey(r.id()))
        .forEach(r -> files.add(r.file().location()));
    rewrite(live, files, names);
  }

  /** {@code rewrite_data_files}: every data file replaced by new ones with its live rows. */
  public void rewriteAll() {
    List<Row> live = liveRows();
    Set<String> files = new java.util.HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = scanRead()) {
      tasks.forEach(t -> files.add(t.file().location()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rewrite(live, files, Map.of());
  }

  private void rewrite(List<Row> live, Set<String> files, Map<Long, String> names) {
    List<Record> kept = new ArrayList<>();
    for (Row r : live) {
      if (files.contains(r.file().location())) {
        Record record = r.record().copy();
        if (names.containsKey(r.id())) {
          record.setField("name", names.get(r.id()));
        }
        kept.add(record);
      }
    }
    // As Spark's rewrite and copy-on-write do: fails if rows of the files changed since the read.
    RewriteFiles rewrite = table.newRewrite().validateFromSnapshot(read.snapshotId());
    try (CloseableIterable<FileScanTask> tasks = scanRead()) {
      for (FileScanTask task : tasks) {
        if (files.contains(task.file().location())) {
          rewrite.deleteFile(task.file());
          task.deletes().forEach(rewrite::deleteFile);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    writeData(kept).forEach(rewrite::addFile);
    rewrite.commit();
  }

  private CloseableIterable<FileScanTask> scanRead() {
    return table.newScan().useSnapshot(read.snapshotId()).planFiles();
  }

  /**
   * Commits as Spark's merge-on-read does under snapshot isolation: fails if a data file it deletes
   * from was removed, or got new deletes, since the rows were read.
   */
  private void rowDelta(List<Row> deleted, List<Record> added) {
    RowDelta delta = table.newRowDelta();
    if (read != null) {
      delta.validateFromSnapshot(read.snapshotId()).validateNoConflictingDeleteFiles();
      Set<String> referenced = new java.util.HashSet<>();
      deleted.forEach(r -> referenced.add(r.file().location()));
      if (!referenced.isEmpty()) {
        delta.validateDataFilesExist(referenced).validateDeletedFiles();
      }
    }
    writeData(added).forEach(delta::addRows);
    if (!deleted.isEmpty()) {
      DeleteWriteResult deletes =
          TableUtil.formatVersion(table) >= 3 ? vectors(deleted) : positionDeletes(deleted);
      deletes.deleteFiles().forEach(delta::addDeletes);
      deletes.rewrittenDeleteFiles().forEach(delta::removeDeletes);
    }
    delta.commit();
  }

  /** One position delete file per partition, naming every data file of it (partition-scoped). */
  private DeleteWriteResult positionDeletes(List<Row> deleted) {
    Map<String, List<Row>> byPartition = new LinkedHashMap<>();
    for (Row r : deleted) {
      byPartition
          .computeIfAbsent(
              table.spec().partitionToPath(r.file().partition()), p -> new ArrayList<>())
          .add(r);
    }
    List<DeleteFile> files = new ArrayList<>();
    for (List<Row> rows : byPartition.values()) {
      rows.sort(Comparator.comparing((Row r) -> r.file().location()).thenComparingLong(Row::pos));
      StructLike partition = rows.get(0).file().partition();
      PositionDeleteWriter<Record> writer =
          writers()
              .newPositionDeleteWriter(
                  outputs(FileFormat.PARQUET).newOutputFile(table.spec(), partition),
                  table.spec(),
                  partition);
      PositionDelete<Record> delete = PositionDelete.create();
      try (writer) {
        for (Row r : rows) {
          writer.write(delete.set(r.file().location(), r.pos()));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      files.add(writer.toDeleteFile());
    }
    return new DeleteWriteResult(files);
  }

  /** Deletion vectors, each merged with the data file's current one, which it replaces. */
  private DeleteWriteResult vectors(List<Row> deleted) {
    Map<String, List<DeleteFile>> current = new HashMap<>();
    try (CloseableIterable<FileScanTask> tasks = scanRead()) {
      tasks.forEach(t -> current.put(t.file().location(), t.deletes()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    BaseDeleteLoader loader = new BaseDeleteLoader(f -> table.io().newInputFile(f));
    BaseDVFileWriter writer =
        new BaseDVFileWriter(
            outputs(FileFormat.PUFFIN),
            path -> {
              List<DeleteFile> files = current.get(path.toString());
              return files == null || files.isEmpty()
                  ? null
                  : loader.loadPositionDeletes(files, path);
            });
    try (writer) {
      for (Row r : deleted) {
        writer.delete(r.file().location(), r.pos(), table.spec(), r.file().partition());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.result();
  }

  private List<DataFile> writeData(List<Record> records) {
    Map<PartitionKey, List<Record>> byPartition = new LinkedHashMap<>();
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    for (Record r : records) {
      PartitionKey key = new PartitionKey(table.spec(), table.schema());
      key.partition(wrapper.wrap(r));
      byPartition.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
    }
    List<DataFile> files = new ArrayList<>();
    OutputFileFactory outputs = outputs(FileFormat.PARQUET);
    for (Map.Entry<PartitionKey, List<Record>> e : byPartition.entrySet()) {
      DataWriter<Record> writer =
          writers()
              .newDataWriter(
                  outputs.newOutputFile(table.spec(), e.getKey()), table.spec(), e.getKey());
      try (writer) {
        e.getValue().forEach(writer::write);
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
      files.add(writer.toDataFile());
    }
    return files;
  }

  private GenericFileWriterFactory writers() {
    return new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(FileFormat.PARQUET)
        .dataSchema(table.schema())
        .build();
  }

  private OutputFileFactory outputs(FileFormat format) {
    return OutputFileFactory.builderFor(table, 99, System.nanoTime())
        .format(format)
        .operationId("outside-" + UUID.randomUUID())
        .build();
  }
}
