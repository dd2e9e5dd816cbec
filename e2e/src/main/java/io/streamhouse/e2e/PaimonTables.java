package io.streamhouse.e2e;

import io.streamhouse.connect.protocol.Watermarks;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;
import org.apache.paimon.utils.SnapshotManager;

/**
 * Reads Paimon tables of a filesystem catalog with Paimon's own reader, for tests and the
 * quickstart.
 */
public final class PaimonTables implements AutoCloseable {
  private final Catalog catalog;

  private PaimonTables(Catalog catalog) {
    this.catalog = catalog;
  }

  public static PaimonTables filesystem(Path warehouse) {
    Options options = new Options();
    options.set("warehouse", warehouse.toString());
    options.set("cache-enabled", "false");
    return new PaimonTables(CatalogFactory.createCatalog(CatalogContext.create(options)));
  }

  /** A filesystem catalog with these catalog options (a warehouse on S3 with its s3.* options). */
  public static PaimonTables withOptions(Map<String, String> catalogOptions) {
    Options options = new Options(new HashMap<>(catalogOptions));
    options.set("cache-enabled", "false");
    return new PaimonTables(CatalogFactory.createCatalog(CatalogContext.create(options)));
  }

  public boolean exists(String table) {
    try {
      catalog.getTable(Identifier.fromString(table));
      return true;
    } catch (Catalog.TableNotExistException e) {
      return false;
    }
  }

  public FileStoreTable table(String table) {
    try {
      return (FileStoreTable) catalog.getTable(Identifier.fromString(table));
    } catch (Catalog.TableNotExistException e) {
      throw new IllegalStateException("no Paimon table " + table, e);
    }
  }

  /** The current rows of {@code table} (merged by primary key), each a map of column to value. */
  public List<Map<String, Object>> rows(String table) {
    FileStoreTable t = table(table);
    List<DataField> fields = t.rowType().getFields();
    ReadBuilder read = t.newReadBuilder();
    List<Map<String, Object>> rows = new ArrayList<>();
    try (RecordReader<InternalRow> reader =
        read.newRead().createReader(read.newScan().plan().splits())) {
      reader.forEachRemaining(
          row -> {
            Map<String, Object> values = new HashMap<>();
            for (int i = 0; i < fields.size(); i++) {
              values.put(fields.get(i).name(), value(row, i, fields.get(i)));
            }
            rows.add(values);
          });
    } catch (Exception e) {
      throw new IllegalStateException("cannot read Paimon table " + table, e);
    }
    return rows;
  }

  /** One BIGINT column of the current rows of {@code table} (merged by primary key), read alone. */
  public List<Long> longs(String table, String column) {
    FileStoreTable t = table(table);
    int index = t.rowType().getFieldNames().indexOf(column);
    if (index < 0) {
      throw new IllegalArgumentException("Paimon table " + table + " has no column " + column);
    }
    ReadBuilder read = t.newReadBuilder().withProjection(new int[] {index});
    List<Long> values = new ArrayList<>();
    try (RecordReader<InternalRow> reader =
        read.newRead().createReader(read.newScan().plan().splits())) {
      reader.forEachRemaining(row -> values.add(row.getLong(0)));
    } catch (Exception e) {
      throw new IllegalStateException("cannot read Paimon table " + table, e);
    }
    return values;
  }

  private static Object value(InternalRow row, int i, DataField field) {
    if (row.isNullAt(i)) {
      return null;
    }
    return switch (field.type().getTypeRoot()) {
      case BIGINT -> row.getLong(i);
      case INTEGER -> row.getInt(i);
      case DOUBLE -> row.getDouble(i);
      case BOOLEAN -> row.getBoolean(i);
      case CHAR, VARCHAR -> row.getString(i).toString();
      case FLOAT -> row.getFloat(i);
      case ROW -> {
        org.apache.paimon.types.RowType type = (org.apache.paimon.types.RowType) field.type();
        InternalRow nested = row.getRow(i, type.getFieldCount());
        Map<String, Object> values = new HashMap<>();
        for (int j = 0; j < type.getFieldCount(); j++) {
          values.put(type.getFields().get(j).name(), value(nested, j, type.getFields().get(j)));
        }
        yield values;
      }
      case MAP -> {
        org.apache.paimon.data.InternalMap map = row.getMap(i);
        org.apache.paimon.types.MapType type = (org.apache.paimon.types.MapType) field.type();
        Map<Object, Object> values = new HashMap<>();
        for (int j = 0; j < map.size(); j++) {
          values.put(
              element(map.keyArray(), j, type.getKeyType()),
              element(map.valueArray(), j, type.getValueType()));
        }
        yield values;
      }
      default -> String.valueOf(InternalRow.createFieldGetter(field.type(), i).getFieldOrNull(row));
    };
  }

  /** An element of a Paimon array: a string as a Java string, anything else as its text. */
  private static Object element(
      org.apache.paimon.data.InternalArray array, int j, org.apache.paimon.types.DataType type) {
    if (array.isNullAt(j)) {
      return null;
    }
    return switch (type.getTypeRoot()) {
      case CHAR, VARCHAR -> array.getString(j).toString();
      default ->
          String.valueOf(
              org.apache.paimon.data.InternalArray.createElementGetter(type)
                  .getElementOrNull(array, j));
    };
  }

  /** The latest snapshot written by {@code connector}'s commit user. */
  public Optional<Snapshot> latestOwnSnapshot(String table, String connector) {
    return table(table).snapshotManager().latestSnapshotOfUser("streamhouse-" + connector);
  }

  /** The connector's watermarks, {@code topic:partition -> next offset}. */
  public Map<String, Long> watermarks(String table, String connector) {
    Map<String, Long> result = new HashMap<>();
    latestOwnSnapshot(table, connector)
        .map(
            s ->
                s.properties() == null
                    ? null
                    : s.properties().get("streamhouse." + connector + ".watermarks"))
        .map(Watermarks::decode)
        .ifPresent(
            w -> w.asMap().forEach((tp, o) -> result.put(tp.topic() + ":" + tp.partition(), o)));
    return result;
  }

  /** Every retained snapshot of the table, oldest first. */
  public List<Snapshot> snapshots(String table) {
    SnapshotManager snapshots = table(table).snapshotManager();
    List<Snapshot> result = new ArrayList<>();
    Long earliest = snapshots.earliestSnapshotId();
    Long latest = snapshots.latestSnapshotId();
    for (long s = earliest == null ? 1 : earliest; latest != null && s <= latest; s++) {
      result.add(snapshots.snapshot(s));
    }
    return result;
  }

  @Override
  public void close() {
    try {
      catalog.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
