package io.streamhouse.connect;

import io.streamhouse.connect.config.CatalogSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.table.TableFormat;
import io.streamhouse.connect.table.iceberg.IcebergFormat;
import io.streamhouse.connect.table.paimon.PaimonFormat;
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
        formats.put(
            catalog.name(),
            switch (catalog.format()) {
              case ICEBERG -> new IcebergFormat(catalog, config.connectorName(), taskId);
              case PAIMON ->
                  new PaimonFormat(
                      catalog,
                      config.connectorName(),
                      config.paimonWriteBufferBytes(),
                      config.paimonSpillDir());
            });
      }
      return formats;
    } catch (RuntimeException e) {
      formats.values().forEach(TableFormat::close);
      throw e;
    }
  }
}
