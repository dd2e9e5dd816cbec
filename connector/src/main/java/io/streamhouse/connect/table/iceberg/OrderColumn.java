package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.decode.ChangeDecoder;
import io.streamhouse.connect.decode.Envelopes;
import io.streamhouse.connect.errors.RecordConversionException;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * The column a keyed route orders a key's changes by ({@code order-by}): a change whose value is
 * lower than that of the row the table holds for its key is dropped and counted, so that a key's
 * latest row wins when its records come out of order from several Kafka partitions
 * (docs/iceberg-primary-key-tables.md, "Keys on two partitions"). An int, long, date or timestamp
 * column at the top level; without one every change applies, in the order it arrives.
 */
final class OrderColumn {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(OrderColumn.class);
  private static final List<Type.TypeID> TYPES =
      List.of(Type.TypeID.INTEGER, Type.TypeID.LONG, Type.TypeID.DATE, Type.TypeID.TIMESTAMP);

  private final int position;
  private final String name;
  private long dropped;

  private OrderColumn(int position, String name) {
    this.position = position;
    this.name = name;
  }

  /**
   * The order-by column of {@code route} in {@code schema} when {@code ordered} (its writer's index
   * keeps order values), else one that orders nothing.
   */
  static OrderColumn of(Schema schema, RouteSettings route, String table, boolean ordered) {
    int id = ordered ? fieldId(schema, route, table) : -1;
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; id >= 0 && i < columns.size(); i++) {
      if (columns.get(i).fieldId() == id) {
        return new OrderColumn(i, columns.get(i).name());
      }
    }
    return new OrderColumn(-1, null);
  }

  /** The field id of {@code route}'s order-by column in {@code schema}; -1 if it has none. */
  static int fieldId(Schema schema, RouteSettings route, String table) {
    if (route.orderBy().isEmpty()) {
      return -1;
    }
    String column = route.orderBy().get();
    Types.NestedField field = schema.caseInsensitiveFindField(column);
    if (field == null || !schema.columns().contains(field)) {
      throw new IllegalStateException(
          "route "
              + route.name()
              + ": order-by column '"
              + column
              + "' is not a top-level column of table "
              + table);
    }
    if (!TYPES.contains(field.type().typeId())) {
      throw new IllegalStateException(
          "route "
              + route.name()
              + ": order-by column '"
              + column
              + "' of table "
              + table
              + " is a "
              + field.type()
              + "; it must be an int, long, date or timestamp");
    }
    return field.fieldId();
  }

  /**
   * The order value of an order-by column's value: an int or long as it is, a date as its epoch
   * day, a timestamp as its epoch microseconds; {@link KeyPositions#NO_ORDER} for null or any other
   * type ({@link #fieldId} allows none other).
   */
  static long valueOf(Object value) {
    if (value instanceof Integer i) {
      return i;
    }
    if (value instanceof Long l) {
      return l;
    }
    if (value instanceof java.time.LocalDate d) {
      return d.toEpochDay();
    }
    if (value instanceof java.time.LocalDateTime t) {
      return DateTimeUtil.microsFromTimestamp(t);
    }
    if (value instanceof java.time.OffsetDateTime t) {
      return DateTimeUtil.microsFromTimestamptz(t);
    }
    return KeyPositions.NO_ORDER;
  }

  /** The order value of converted row {@code row}; {@link KeyPositions#NO_ORDER} if unordered. */
  long of(StructLike row) throws RecordConversionException {
    if (position < 0) {
      return KeyPositions.NO_ORDER;
    }
    Object value = row.get(position, Object.class);
    if (value == null) {
      throw new RecordConversionException(name, "order-by field '" + name + "' is missing or null");
    }
    return valueOf(value);
  }

  /**
   * Whether a change of order value {@code order} is older than the row {@code index} holds for
   * {@code hash}: then it is dropped, and counted.
   */
  boolean older(KeyIndex index, long[] hash, long order) {
    if (position >= 0 && index.orderOf(hash) > order) {
      dropped++;
      return true;
    }
    return false;
  }

  /**
   * Whether delete {@code change} is of a row older than the one {@code index} holds for {@code
   * hash}, by its before image's order value: then it is dropped, and counted. A delete with only a
   * key (a tombstone) always applies.
   */
  boolean deletesOlder(
      ChangeDecoder.Change change, IcebergRecordConverter converter, KeyIndex index, long[] hash)
      throws RecordConversionException {
    if (position < 0 || change.keyOnly()) {
      return false;
    }
    Object value = Envelopes.field(change.row(), name);
    return value != null && older(index, hash, valueOf(converter.column(position, value)));
  }

  /**
   * Logs the changes dropped as older than their key's row since the last call, naming table and
   * route; returns their number.
   */
  long logDropped(String table, String route) {
    long taken = dropped;
    dropped = 0;
    if (taken > 0) {
      LOG.info(
          "Dropped {} change(s) of table {} (route {}) older by {} than the row the table holds for"
              + " their key",
          taken,
          table,
          route,
          name);
    }
    return taken;
  }
}
