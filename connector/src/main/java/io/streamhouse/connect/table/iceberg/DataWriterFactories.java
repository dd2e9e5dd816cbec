package io.streamhouse.connect.table.iceberg;

import java.util.Locale;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;

/** Writers of generic records into a table's data files, in its write.format.default. */
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
}
