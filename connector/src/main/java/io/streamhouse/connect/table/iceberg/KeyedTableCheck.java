package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Proves that a keyed Iceberg table holds one live row per key, and names the keys that break it:
 * reads the key columns (the identifier fields) of every live row of the current snapshot, with its
 * position deletes, deletion vectors and equality deletes applied, counts the rows of each key by
 * its 128-bit hash (24 bytes a slot, as the connector's key index), and reads the keys with more
 * than one row again to name them. The same check in SQL, for any engine that reads the table:
 * {@code SELECT id, count(*) FROM t GROUP BY id HAVING count(*) > 1}.
 *
 * <p>Command (the plugin's jars and the Kafka jars of a Connect installation; the config is the
 * connector's, as a {@code .properties} file of its keys, secrets filled in):
 *
 * <pre>
 * java -cp "plugin/lib/*:kafka/libs/*" io.streamhouse.connect.table.iceberg.KeyedTableCheck \
 *     connector.properties catalog-name namespace.table
 * </pre>
 *
 * Prints the table, its snapshot, live rows, keys and the keys with more than one row; exits 0 when
 * there are none, 1 when there are, 2 on a usage or read error.
 */
public final class KeyedTableCheck {
  /** Keys named in a report at most. */
  static final int NAMED = 20;

  /**
   * What a check found: {@code duplicated} names up to {@link #NAMED} keys with more than one live
   * row and their row counts; {@code duplicatedKeys} counts them all.
   */
  public record Report(
      String table,
      long snapshot,
      long liveRows,
      long keys,
      long duplicatedKeys,
      Map<String, Long> duplicated) {
    /** True when every key has one live row. */
    public boolean oneRowPerKey() {
      return duplicatedKeys == 0;
    }

    @Override
    public String toString() {
      return "Table "
          + table
          + " at snapshot "
          + snapshot
          + ": "
          + liveRows
          + " live rows, "
          + keys
          + " keys, "
          + duplicatedKeys
          + " keys with more than one live row"
          + (duplicated.isEmpty() ? "" : " " + duplicated);
    }
  }

  private KeyedTableCheck() {}

  /** Checks the current snapshot of {@code table} (its identifier fields are the key). */
  public static Report check(Table table) {
    table.refresh();
    return check(table, table.currentSnapshot());
  }

  /** Checks snapshot {@code current} of {@code table} (null: the table has none). */
  public static Report check(Table table, Snapshot current) {
    if (current == null) {
      return new Report(table.name(), -1, 0, 0, 0, Map.of());
    }
    Schema schema = table.schema();
    List<Integer> keyIds = KeyIndex.keyIds(schema);
    if (keyIds.isEmpty()) {
      throw new IllegalArgumentException("table " + table.name() + " has no identifier fields");
    }
    KeyHash hash = new KeyHash(KeyIndex.keyTypes(schema, keyIds));
    KeyPositions counts = new KeyPositions(KeyPositions.liveRowsOf(current), false);
    long[] rows = {0};
    List<long[]> twice = new ArrayList<>();
    KeyIndex.empty(hash, keyIds, -1)
        .readFiles(
            table,
            current,
            location -> true,
            (key, packed, order) -> {
              rows[0]++;
              long seen = counts.get(key);
              counts.put(key, seen == KeyPositions.NONE ? 1 : seen + 1);
              if (seen == 1) {
                twice.add(key);
              }
            });
    return new Report(
        table.name(),
        current.snapshotId(),
        rows[0],
        counts.size(),
        twice.size(),
        twice.isEmpty() ? Map.of() : named(table, current, keyIds, hash, counts, twice));
  }

  /** The first {@link #NAMED} keys of {@code twice}, as text, with their row counts. */
  private static Map<String, Long> named(
      Table table,
      Snapshot current,
      List<Integer> keyIds,
      KeyHash hash,
      KeyPositions counts,
      List<long[]> twice) {
    KeyPositions wanted = new KeyPositions();
    twice.stream().limit(NAMED).forEach(k -> wanted.put(k, 0));
    List<String> names = keyIds.stream().map(id -> table.schema().findField(id).name()).toList();
    int[] positions = new int[names.size()];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = i;
    }
    Map<String, Long> named = new LinkedHashMap<>();
    try (CloseableIterable<Record> read =
        IcebergGenerics.read(table).useSnapshot(current.snapshotId()).select(names).build()) {
      for (Record row : read) {
        Object[] values = new Object[names.size()];
        for (int i = 0; i < values.length; i++) {
          values[i] = row.getField(names.get(i));
        }
        long[] key = hash.of(values);
        if (wanted.get(key) != KeyPositions.NONE) {
          Map<String, Object> text = new LinkedHashMap<>();
          for (int i = 0; i < values.length; i++) {
            text.put(names.get(i), values[i]);
          }
          named.put(text.toString(), counts.get(key));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the keys of table " + table.name(), e);
    }
    return named;
  }

  public static void main(String[] args) {
    if (args.length != 3) {
      System.err.println(
          "usage: KeyedTableCheck <connector.properties> <catalog-name> <namespace.table>");
      System.exit(2);
    }
    try {
      Properties props = new Properties();
      try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
        props.load(in);
      }
      Map<String, String> config = new HashMap<>();
      props.stringPropertyNames().forEach(k -> config.put(k, props.getProperty(k)));
      StreamhouseSinkConfig sink = new StreamhouseSinkConfig(config);
      try (IcebergFormat format = new IcebergFormat(sink.catalog(args[1]), "check", -1)) {
        Report report = check(format.catalog().loadTable(TableIdentifier.parse(args[2])));
        System.out.println(report);
        System.exit(report.oneRowPerKey() ? 0 : 1);
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("KeyedTableCheck: " + e);
      System.exit(2);
    }
  }
}
