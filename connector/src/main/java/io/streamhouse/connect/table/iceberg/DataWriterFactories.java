package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.decode.KafkaMetadata;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Writers of generic records into a table's data files, in its write.format.default, and what the
 * task writers of both kinds (append, keyed) read from the table the same way.
 */
final class DataWriterFactories {
  private DataWriterFactories() {}

  static FileFormat fileFormat(Table table) {
    return FileFormat.fromString(
        table
            .properties()
            .getOrDefault(
                TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT)
            .toUpperCase(Locale.ROOT));
  }

  static GenericFileWriterFactory forTable(Table table) {
    return new GenericFileWriterFactory.Builder(table)
        .dataFileFormat(fileFormat(table))
        .dataSchema(table.schema())
        .build();
  }

  /** Names of a task's new data and delete files of {@code table}: one operation per writer. */
  static OutputFileFactory outputFiles(Table table, int taskId) {
    return OutputFileFactory.builderFor(table, taskId, System.currentTimeMillis())
        .format(fileFormat(table))
        .operationId(UUID.randomUUID().toString())
        .build();
  }

  /**
   * What an open data file of {@code table} costs before its first row: its column writers' page
   * and compressor buffers, a Parquet page per column.
   */
  static long openFileBytes(Table table) {
    long pageBytes =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.PARQUET_PAGE_SIZE_BYTES,
            TableProperties.PARQUET_PAGE_SIZE_BYTES_DEFAULT);
    return 64 * 1024
        + pageBytes * org.apache.iceberg.types.TypeUtil.indexById(table.schema().asStruct()).size();
  }

  /** The table's {@code write.target-file-size-bytes}. */
  static long targetFileSize(Table table) {
    return PropertyUtil.propertyAsLong(
        table.properties(),
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
  }

  /**
   * Where the table has the metadata column of a route that writes one; -1 otherwise (with
   * schema-evolution=none a table may lack it: then no metadata is written).
   */
  static int metadataPosition(Schema schema, KafkaMetadata metadata) {
    if (metadata.enabled()) {
      List<Types.NestedField> columns = schema.columns();
      for (int i = 0; i < columns.size(); i++) {
        if (columns.get(i).name().equals(metadata.column())) {
          return i;
        }
      }
    }
    return -1;
  }
}
