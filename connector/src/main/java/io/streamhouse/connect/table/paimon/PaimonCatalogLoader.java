package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.config.CatalogSettings;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.options.Options;

/**
 * Opens a Paimon catalog from {@code catalog.<name>.*}: {@code type} becomes Paimon's {@code
 * metastore} (filesystem, jdbc, rest) and every other key is passed through as a catalog option
 * (uri, warehouse, token, jdbc.user, jdbc.password, s3.*, ...).
 */
final class PaimonCatalogLoader {
  private PaimonCatalogLoader() {}

  static Catalog load(CatalogSettings settings) {
    Options options = new Options(options(settings));
    try {
      return CatalogFactory.createCatalog(CatalogContext.create(options));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "Cannot open Paimon " + settings + ": " + e.getMessage(), e);
    }
  }

  static Map<String, String> options(CatalogSettings settings) {
    Map<String, String> options = new java.util.HashMap<>(settings.properties());
    options.put("metastore", settings.type());
    // Several processes (tasks, other engines) change tables: always read the table's current
    // state.
    options.putIfAbsent("cache-enabled", "false");
    return options;
  }
}
