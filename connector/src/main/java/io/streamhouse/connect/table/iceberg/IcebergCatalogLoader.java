package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.config.CatalogSettings;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;

/** Builds an Iceberg catalog from a named catalog's settings. */
final class IcebergCatalogLoader {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(IcebergCatalogLoader.class);

  private IcebergCatalogLoader() {}

  static Catalog load(CatalogSettings settings) {
    Map<String, String> props = new HashMap<>(settings.properties());
    switch (settings.type()) {
      case "custom" -> props.put(CatalogProperties.CATALOG_IMPL, props.remove("catalog-impl"));
      case "jdbc" -> {
        props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, "jdbc");
        props.putIfAbsent("jdbc.schema-version", "V1");
        if (isSqlite(props.get(CatalogProperties.URI))) {
          // Several tasks, the coordinator and other workers share the file: wait for locks
          // instead of failing at once, and let readers run beside the writer.
          props.putIfAbsent("jdbc.busy_timeout", "30000");
          props.putIfAbsent("jdbc.journal_mode", "WAL");
        }
        loadDriverOf(props.get(CatalogProperties.URI));
      }
      default -> props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, settings.type());
    }
    boolean ownsWarehouse = settings.type().equals("jdbc") || settings.type().equals("hadoop");
    if (ownsWarehouse
        && !props.containsKey(CatalogProperties.FILE_IO_IMPL)
        && LocalFileIO.isLocal(props.get(CatalogProperties.WAREHOUSE_LOCATION))) {
      props.put(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
    }
    ClassLoader previous = Thread.currentThread().getContextClassLoader();
    Thread.currentThread().setContextClassLoader(IcebergCatalogLoader.class.getClassLoader());
    try {
      return initialize(settings, props);
    } finally {
      Thread.currentThread().setContextClassLoader(previous);
    }
  }

  /**
   * Catalogs that create their own schema on first use (JDBC) race when several tasks start at
   * once: initialize one at a time in this JVM, and retry what another JVM's race made fail.
   */
  private static synchronized Catalog initialize(
      CatalogSettings settings, Map<String, String> props) {
    RuntimeException last = null;
    for (int attempt = 1; attempt <= 5; attempt++) {
      try {
        return CatalogUtil.buildIcebergCatalog(settings.name(), props, new Configuration());
      } catch (RuntimeException e) {
        last = e;
        LOG.warn("Could not initialize {} (attempt {} of 5): {}", settings, attempt, e.toString());
        try {
          Thread.sleep(200L * attempt);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
    throw last;
  }

  private static boolean isSqlite(String uri) {
    return uri != null && uri.startsWith("jdbc:sqlite:");
  }

  /**
   * DriverManager finds drivers through the class loader that was current when it first ran in the
   * worker; a plugin's driver must register itself by being loaded.
   */
  private static void loadDriverOf(String uri) {
    if (isSqlite(uri)) {
      try {
        Class.forName("org.sqlite.JDBC", true, IcebergCatalogLoader.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException("The SQLite JDBC driver is missing from the plugin", e);
      }
    }
  }
}
