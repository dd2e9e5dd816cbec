package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.protocol.TableId;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Type;

/**
 * The record converters of one task's append tables: one per table, kept from round to round while
 * the table's schema and the kind of its partitioning stay the same. A table writer lasts one
 * round; a converter made afresh with each would build its tree of the table's schema and its
 * caches (record templates, field layouts) again every round. At most {@link #MAX_TABLES} are kept,
 * the least recently used going first.
 */
final class IcebergConverters {
  /** Converters kept at most; a converter is a few KB. */
  static final int MAX_TABLES = 1024;

  private final Map<TableId, IcebergRecordConverter> byTable =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<TableId, IcebergRecordConverter> eldest) {
          return size() > MAX_TABLES;
        }
      };

  /**
   * The converter for {@code table} as it is now: the kept one if it still fits, else a new one.
   */
  synchronized IcebergRecordConverter forTable(TableId id, Table table) {
    boolean utf8Strings = noStringPartitions(table);
    IcebergRecordConverter kept = byTable.get(id);
    if (kept != null
        && kept.utf8Strings() == utf8Strings
        && kept.schema().sameSchema(table.schema())) {
      return kept;
    }
    IcebergRecordConverter made = new IcebergRecordConverter(table.schema(), utf8Strings);
    byTable.put(id, made);
    return made;
  }

  synchronized int size() {
    return byTable.size();
  }

  /**
   * Whether no partition of {@code table} is derived from a string column: only then may records
   * hold their strings as Utf8, which partition keys would not take as equal to a String of the
   * same text.
   */
  private static boolean noStringPartitions(Table table) {
    return table.spec().fields().stream()
        .noneMatch(f -> table.schema().findType(f.sourceId()).typeId() == Type.TypeID.STRING);
  }
}
