package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.config.CatalogSettings;
import io.streamhouse.connect.table.Retries;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds an Iceberg catalog from a named catalog's settings. */
final class IcebergCatalogLoader {
  private static final Logger LOG = LoggerFactory.getLogger(IcebergCatalogLoader.class);

  private IcebergCatalogLoader() {}

  /** Catalog properties under this prefix are Hadoop {@code Configuration} entries instead. */
  static final String HADOOP_PREFIX = "hadoop.";

  /** A catalog property naming a directory whose Hadoop {@code *-site.xml} files are loaded. */
  static final String HADOOP_CONF_DIR = "hadoop-conf-dir";

  static Catalog load(CatalogSettings settings) {
    Map<String, String> props = new HashMap<>(settings.properties());
    Configuration hadoopConf = hadoopConf(props);
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
      case "hadoop" -> {
        props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, "hadoop");
        // Tasks creating one table at once wait for each other's commit lock: wake on release
        // instead of Iceberg's default 5 s retry.
        props.putIfAbsent(CatalogProperties.LOCK_IMPL, WaitingLockManager.class.getName());
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
      return initialize(settings, props, hadoopConf);
    } finally {
      Thread.currentThread().setContextClassLoader(previous);
    }
  }

  /** Attempts at initializing a catalog before its failure is the task's. */
  static final int INIT_ATTEMPTS = 5;

  /**
   * Catalogs that create their own schema on first use (JDBC) race when several tasks start at
   * once: initialize one at a time in this JVM, and retry what another JVM's race made fail, after
   * 200 ms, 400 ms, then 800 ms each time.
   */
  private static synchronized Catalog initialize(
      CatalogSettings settings, Map<String, String> props, Configuration hadoopConf) {
    return Retries.withBackoff(
        INIT_ATTEMPTS,
        200,
        800,
        RuntimeException.class,
        attempt -> {
          try {
            return CatalogUtil.buildIcebergCatalog(settings.name(), props, hadoopConf);
          } catch (RuntimeException e) {
            LOG.warn(
                "Could not initialize {} (attempt {} of {}): {}",
                settings,
                attempt,
                INIT_ATTEMPTS,
                e.toString());
            throw e;
          }
        });
  }

  /**
   * The Hadoop configuration of a catalog (Hadoop file systems, Hadoop catalogs): the {@code
   * *-site.xml} files of {@code hadoop-conf-dir}, then every {@code hadoop.<key>} property, which
   * wins. Both are removed from {@code props}.
   */
  static Configuration hadoopConf(Map<String, String> props) {
    Configuration conf = new Configuration();
    String dir = props.remove(HADOOP_CONF_DIR);
    if (dir != null && !dir.isBlank()) {
      for (String file : new String[] {"core-site.xml", "hdfs-site.xml", "hive-site.xml"}) {
        Path path = Path.of(dir.trim(), file);
        if (Files.isRegularFile(path)) {
          conf.addResource(new org.apache.hadoop.fs.Path(path.toUri()));
        }
      }
    }
    props
        .entrySet()
        .removeIf(
            e -> {
              if (!e.getKey().startsWith(HADOOP_PREFIX)) {
                return false;
              }
              conf.set(e.getKey().substring(HADOOP_PREFIX.length()), e.getValue());
              return true;
            });
    return conf;
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
