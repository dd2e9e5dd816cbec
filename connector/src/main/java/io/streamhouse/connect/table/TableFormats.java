package io.streamhouse.connect.table;

import io.streamhouse.connect.config.CatalogSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.table.iceberg.IcebergFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/** Opens the table format of each configured catalog. */
public final class TableFormats {
  private TableFormats() {}

  /** One {@link TableFormat} per catalog name; the caller closes them. */
  public static Map<String, TableFormat> open(StreamhouseSinkConfig config, int taskId) {
    Map<String, TableFormat> formats = new LinkedHashMap<>();
    try {
      for (CatalogSettings catalog : config.catalogs()) {
        if (!catalog.format().equals("iceberg")) {
          throw new IllegalArgumentException(catalog + ": the " + catalog.format()
              + " format is not available in this version");
        }
        formats.put(catalog.name(), new IcebergFormat(catalog, config.connectorName(), taskId));
      }
      return formats;
    } catch (RuntimeException e) {
      formats.values().forEach(TableFormat::close);
      throw e;
    }
  }
}
