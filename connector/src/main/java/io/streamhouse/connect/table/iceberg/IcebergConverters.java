package io.streamhouse.connect.table.iceberg;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.streamhouse.connect.protocol.TableId;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Type;

/**
 * The record converters of one task's append tables: one per table, kept from round to round while
 * the table's schema and the kind of its partitioning stay the same. A table writer lasts one
 * round; a converter made afresh with each would build its tree of the table's schema and its
 * caches (record templates, field layouts) again every round. At most {@link #MAX_TABLES} are kept,
 * Caffeine choosing which go (by how often and how lately each was asked for).
 */
final class IcebergConverters {
  /** Converters kept at most; a converter is a few KB. */
  static final int MAX_TABLES = 1024;

  /** Evicting on the thread that adds, not on a pool's. */
  private final Cache<TableId, IcebergRecordConverter> byTable =
      Caffeine.newBuilder().maximumSize(MAX_TABLES).executor(Runnable::run).build();

  /**
   * The converter for {@code table} as it is now: the kept one if it still fits, else a new one.
   */
  IcebergRecordConverter forTable(TableId id, Table table) {
    boolean utf8Strings = noStringPartitions(table);
    IcebergRecordConverter kept = byTable.getIfPresent(id);
    if (kept != null
        && kept.utf8Strings() == utf8Strings
        && kept.schema().sameSchema(table.schema())) {
      return kept;
    }
    IcebergRecordConverter made = new IcebergRecordConverter(table.schema(), utf8Strings);
    byTable.put(id, made);
    return made;
  }

  /** How many are kept, once pending evictions are done. */
  long size() {
    byTable.cleanUp();
    return byTable.estimatedSize();
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
