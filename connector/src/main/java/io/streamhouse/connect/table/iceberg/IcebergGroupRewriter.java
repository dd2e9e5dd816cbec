package io.streamhouse.connect.table.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.util.PartitionUtil;

/**
 * Copies the rows of some data files of one partition into new data files of about a target size,
 * in the table's file format. Rows stream through: one input file and one output file are open at a
 * time, whatever the number of rows. Position deletes of an input file are applied (the caller
 * leaves out files with equality deletes). Rows are written in the order they are read, and the
 * {@link RewriteMap} of the rewrite says where each kept row went.
 */
final class IcebergGroupRewriter {
  private final Table table;
  private final Schema schema;
  private final GenericFileWriterFactory writerFactory;
  private final OutputFileFactory fileFactory;

  /** One rewriter per compaction run: its files are named after one operation id. */
  IcebergGroupRewriter(Table table) {
    this.table = table;
    this.schema = table.schema();
    FileFormat format = DataWriterFactories.fileFormat(table);
    this.writerFactory = DataWriterFactories.forTable(table);
    this.fileFactory =
        OutputFileFactory.builderFor(table, 0, 0)
            .format(format)
            .operationId("compaction-" + UUID.randomUUID())
            .build();
  }

  /** The files a rewrite wrote, in write order, and where the rows of the files it read went. */
  record Rewritten(List<DataFile> files, RewriteMap map) {}

  /**
   * Writes the rows of {@code tasks} (whole files of {@code partition} of {@code spec}) into new
   * files rolled at {@code targetFileSize}; returns them. On a failure the files written so far are
   * deleted and the failure is thrown.
   */
  Rewritten rewrite(
      List<FileScanTask> tasks, PartitionSpec spec, StructLike partition, long targetFileSize) {
    RollingDataWriter<Record> writer =
        new RollingDataWriter<>(
            writerFactory,
            fileFactory,
            table.io(),
            targetFileSize,
            spec,
            spec.isUnpartitioned() ? null : partition);
    RewriteMap.Builder map = new RewriteMap.Builder();
    try {
      for (FileScanTask task : tasks) {
        map.startFile(task.file().location(), task.file().recordCount());
        try (CloseableIterable<Record> rows = read(task, map)) {
          for (Record row : rows) {
            writer.write(row);
          }
        }
        map.endFile();
      }
      writer.close();
    } catch (IOException | RuntimeException e) {
      RuntimeException failure =
          e instanceof IOException io
              ? new UncheckedIOException(
                  "Cannot rewrite data files of table " + table.name() + ": " + io.getMessage(), io)
              : (RuntimeException) e;
      deleteWritten(writer, failure);
      throw failure;
    }
    List<DataFile> written = writer.result().dataFiles();
    return new Rewritten(
        written,
        map.build(
            written.stream()
                .map(f -> new RewriteMap.Output(f.location(), f.recordCount()))
                .toList()));
  }

  /**
   * The rows of one data file in the table's current schema (columns it lacks read as null),
   * identity partition values filled in from the file's partition as Iceberg's readers do. The
   * reader reuses one record: each row is written before the next is read. Tells {@code map} the
   * position of every row kept.
   */
  private CloseableIterable<Record> read(FileScanTask task, RewriteMap.Builder map) {
    Map<Integer, ?> constants =
        PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    if (task.deletes().isEmpty()) {
      map.keptAll();
      return FormatModelRegistry.<Record, Object>readBuilder(
              task.file().format(), Record.class, table.io().newInputFile(task.file()))
          .project(schema)
          .idToConstant(constants)
          .split(task.start(), task.length())
          .reuseContainers()
          .build();
    }
    // Position deletes applied: the filter reads the row positions too (an extra column), which
    // the copy into the table's schema leaves out.
    GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, schema, schema);
    CloseableIterable<Record> rows =
        deletes.filter(
            FormatModelRegistry.<Record, Object>readBuilder(
                    task.file().format(), Record.class, table.io().newInputFile(task.file()))
                .project(deletes.requiredSchema())
                .idToConstant(constants)
                .split(task.start(), task.length())
                .build());
    int columns = schema.columns().size();
    int position = positionColumn(deletes.requiredSchema());
    return CloseableIterable.transform(
        rows,
        row -> {
          map.kept((Long) row.get(position));
          Record copy = GenericRecord.create(schema);
          for (int i = 0; i < columns; i++) {
            copy.set(i, row.get(i));
          }
          return copy;
        });
  }

  private static int positionColumn(Schema required) {
    List<org.apache.iceberg.types.Types.NestedField> columns = required.columns();
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).fieldId() == MetadataColumns.ROW_POSITION.fieldId()) {
        return i;
      }
    }
    throw new IllegalStateException("the delete filter reads no row positions: " + required);
  }

  private void deleteWritten(RollingDataWriter<Record> writer, RuntimeException failure) {
    try {
      writer.close(); // a no-op if already closed; closing is what makes its files known
      for (DataFile file : writer.result().dataFiles()) {
        table.io().deleteFile(file.location());
      }
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e); // orphan files in the data location, in no snapshot
    }
  }
}
