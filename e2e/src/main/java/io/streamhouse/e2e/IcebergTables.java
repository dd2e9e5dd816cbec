package io.streamhouse.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** Reads Iceberg tables with Iceberg's own reader, to check what the sink wrote. */
public final class IcebergTables implements AutoCloseable {
  private final Catalog catalog;

  private IcebergTables(Catalog catalog) {
    this.catalog = catalog;
  }

  /**
   * The embedded default: a JDBC catalog in a SQLite file. {@code name} must be the writer's
   * catalog name: a JDBC catalog keeps the tables of each catalog name apart.
   */
  public static IcebergTables jdbc(String name, String uri, Path warehouse) {
    try {
      Class.forName("org.sqlite.JDBC");
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
    Map<String, String> props = new HashMap<>();
    props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, "jdbc");
    props.put("uri", uri);
    props.put("warehouse", warehouse.toString());
    props.put("jdbc.schema-version", "V1");
    return new IcebergTables(CatalogUtil.buildIcebergCatalog(name, props, new Configuration()));
  }

  /** A Hadoop catalog (tables as folders of a warehouse on a file system). */
  public static IcebergTables hadoop(String name, String warehouse) {
    Map<String, String> props =
        Map.of(CatalogUtil.ICEBERG_CATALOG_TYPE, "hadoop", "warehouse", warehouse);
    return new IcebergTables(CatalogUtil.buildIcebergCatalog(name, props, new Configuration()));
  }

  /** A REST catalog. */
  public static IcebergTables rest(String uri) {
    return rest(uri, Map.of());
  }

  /**
   * A REST catalog whose files live in an S3-compatible store: read through S3FileIO with these
   * properties.
   */
  public static IcebergTables rest(String uri, Map<String, String> fileIoProperties) {
    Map<String, String> props = new HashMap<>(fileIoProperties);
    props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, "rest");
    props.put("uri", uri);
    return new IcebergTables(CatalogUtil.buildIcebergCatalog("reader", props, new Configuration()));
  }

  public boolean exists(String table) {
    return catalog.tableExists(TableIdentifier.parse(table));
  }

  public Table table(String table) {
    return catalog.loadTable(TableIdentifier.parse(table));
  }

  /**
   * Every row of {@code table} as a map of column to value: the table's columns only (with position
   * deletes to apply, Iceberg's reader adds a {@code _pos} metadata column to the records).
   */
  public List<Map<String, Object>> rows(String table) {
    return rows(table(table));
  }

  /** Every row of a table as a map of column to value, as {@link #rows(String)}. */
  public static List<Map<String, Object>> rows(Table t) {
    List<Map<String, Object>> rows = new ArrayList<>();
    List<String> columns = t.schema().columns().stream().map(f -> f.name()).toList();
    try (CloseableIterable<Record> records = IcebergGenerics.read(t).build()) {
      for (Record r : records) {
        Map<String, Object> row = new HashMap<>();
        columns.forEach(c -> row.put(c, r.getField(c)));
        rows.add(row);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }

  /** The summary of the table's current snapshot (empty if it has none). */
  public Map<String, String> lastSummary(String table) {
    Snapshot s = table(table).currentSnapshot();
    return s == null ? Map.of() : s.summary();
  }

  /**
   * The connector's watermarks, {@code topic:partition -> next offset}: in the snapshot its tag
   * {@code streamhouse-<connector>} names (moved with each of its commits), else in the current
   * snapshot.
   */
  public Map<String, Long> watermarks(String table, String connector) {
    Table t = table(table);
    org.apache.iceberg.SnapshotRef tag = t.refs().get("streamhouse-" + connector);
    Snapshot s = tag == null ? t.currentSnapshot() : t.snapshot(tag.snapshotId());
    return watermarksOf(s == null ? Map.of() : s.summary(), connector);
  }

  /** The connector's watermarks in a snapshot summary, {@code topic:partition -> next offset}. */
  public static Map<String, Long> watermarksOf(Map<String, String> summary, String connector) {
    Map<String, Long> result = new HashMap<>();
    String encoded = summary.get("streamhouse." + connector + ".watermarks");
    if (encoded != null && !encoded.isEmpty()) {
      for (String pair : encoded.split(",")) {
        int eq = pair.lastIndexOf('=');
        result.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
      }
    }
    return result;
  }

  @Override
  public void close() {
    if (catalog instanceof AutoCloseable c) {
      try {
        c.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
