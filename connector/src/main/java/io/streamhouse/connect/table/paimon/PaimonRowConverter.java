package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.table.RecordConversionException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * Connect values (structs, or maps of schemaless JSON) to Paimon rows of one table's row type,
 * matching fields by name. A field the value lacks is null; a value that does not fit its column
 * (a string into an int, an int that overflows, a null in a NOT NULL column) is a
 * {@link RecordConversionException} naming the field.
 */
final class PaimonRowConverter {
  private static final long MILLIS_PER_DAY = 86_400_000L;

  private final RowType rowType;
  /** Per Connect struct schema, the position of each table column in it (-1: absent). */
  private final Map<org.apache.kafka.connect.data.Schema, Field[]> layouts = new IdentityHashMap<>();

  PaimonRowConverter(RowType rowType) {
    this.rowType = rowType;
  }

  /** The row of {@code kind}; with {@code keyOnly} only {@code keyFields} must be present. */
  GenericRow convert(Object value, RowKind kind, boolean keyOnly, List<String> keyFields)
      throws RecordConversionException {
    GenericRow row = row(rowType, value, "", kind);
    List<DataField> fields = rowType.getFields();
    for (int i = 0; i < fields.size(); i++) {
      DataField f = fields.get(i);
      if (row.isNullAt(i) && (keyFields.contains(f.name()) || (!f.type().isNullable() && !keyOnly))) {
        throw new RecordConversionException(f.name(), keyFields.contains(f.name())
            ? "primary key field '" + f.name() + "' is missing or null"
            : "column '" + f.name() + "' is NOT NULL but the record has no value for it");
      }
    }
    return row;
  }

  private GenericRow row(RowType type, Object value, String path, RowKind kind) throws RecordConversionException {
    List<DataField> fields = type.getFields();
    GenericRow row = new GenericRow(kind, fields.size());
    if (value instanceof Struct struct) {
      Field[] layout = layouts.computeIfAbsent(struct.schema(), s -> layout(fields, s));
      for (int i = 0; i < fields.size(); i++) {
        if (layout[i] != null) {
          DataField f = fields.get(i);
          row.setField(i, value(f.type(), struct.get(layout[i]), path + f.name()));
        }
      }
    } else if (value instanceof Map<?, ?> map) {
      for (int i = 0; i < fields.size(); i++) {
        DataField f = fields.get(i);
        row.setField(i, value(f.type(), map.get(f.name()), path + f.name()));
      }
    } else if (value != null) {
      throw new RecordConversionException(path.isEmpty() ? "<value>" : path.substring(0, path.length() - 1),
          "expected a struct or a JSON object, got " + value.getClass().getSimpleName());
    }
    return row;
  }

  private static Field[] layout(List<DataField> fields, org.apache.kafka.connect.data.Schema schema) {
    Field[] layout = new Field[fields.size()];
    for (int i = 0; i < fields.size(); i++) {
      layout[i] = schema.field(fields.get(i).name());
    }
    return layout;
  }

  private Object value(DataType type, Object v, String field) throws RecordConversionException {
    if (v == null) {
      return null;
    }
    try {
      return switch (type.getTypeRoot()) {
        case BOOLEAN -> v instanceof Boolean b ? b : fail(type, v, field);
        case TINYINT -> (byte) exact(v, Byte.MIN_VALUE, Byte.MAX_VALUE, type, field);
        case SMALLINT -> (short) exact(v, Short.MIN_VALUE, Short.MAX_VALUE, type, field);
        case INTEGER -> (int) exact(v, Integer.MIN_VALUE, Integer.MAX_VALUE, type, field);
        case BIGINT -> exact(v, Long.MIN_VALUE, Long.MAX_VALUE, type, field);
        case FLOAT -> v instanceof Number n && !(v instanceof BigDecimal) ? n.floatValue() : fail(type, v, field);
        case DOUBLE -> v instanceof Number n && !(v instanceof BigDecimal) ? n.doubleValue() : fail(type, v, field);
        case DECIMAL -> decimal((DecimalType) type, v, field);
        case CHAR, VARCHAR -> v instanceof String s ? BinaryString.fromString(s) : fail(type, v, field);
        case BINARY, VARBINARY -> bytes(v, type, field);
        case DATE -> v instanceof java.util.Date d ? (int) Math.floorDiv(d.getTime(), MILLIS_PER_DAY)
            : v instanceof LocalDate ld ? (int) ld.toEpochDay()
            : v instanceof Integer days ? days : fail(type, v, field);
        case TIME_WITHOUT_TIME_ZONE -> v instanceof java.util.Date d ? (int) Math.floorMod(d.getTime(), MILLIS_PER_DAY)
            : v instanceof Integer millis ? millis : fail(type, v, field);
        case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
            v instanceof java.util.Date d ? Timestamp.fromEpochMillis(d.getTime())
                : v instanceof Long millis ? Timestamp.fromEpochMillis(millis) : fail(type, v, field);
        case ARRAY -> array((ArrayType) type, v, field);
        case MAP -> map((MapType) type, v, field);
        case ROW -> row((RowType) type, v, field + ".", RowKind.INSERT);
        default -> throw new RecordConversionException(field, "column type " + type + " is not supported");
      };
    } catch (ArithmeticException e) {
      throw new RecordConversionException(field, "value " + v + " does not fit column type " + type, e);
    }
  }

  private static long exact(Object v, long min, long max, DataType type, String field)
      throws RecordConversionException {
    long l;
    if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
      l = ((Number) v).longValue();
    } else if (v instanceof BigDecimal d) {
      l = d.longValueExact();
    } else {
      return fail(type, v, field);
    }
    if (l < min || l > max) {
      throw new RecordConversionException(field, "value " + l + " does not fit column type " + type);
    }
    return l;
  }

  private static Decimal decimal(DecimalType type, Object v, String field) throws RecordConversionException {
    BigDecimal d;
    if (v instanceof BigDecimal bd) {
      d = bd;
    } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
      d = BigDecimal.valueOf(((Number) v).longValue());
    } else if (v instanceof Double || v instanceof Float) {
      d = BigDecimal.valueOf(((Number) v).doubleValue());
    } else {
      return fail(type, v, field);
    }
    Decimal result = Decimal.fromBigDecimal(d.setScale(type.getScale(), RoundingMode.UNNECESSARY),
        type.getPrecision(), type.getScale());
    if (result == null) {
      throw new RecordConversionException(field, "value " + v + " does not fit column type " + type);
    }
    return result;
  }

  private static byte[] bytes(Object v, DataType type, String field) throws RecordConversionException {
    if (v instanceof byte[] b) {
      return b;
    } else if (v instanceof ByteBuffer buffer) {
      byte[] b = new byte[buffer.remaining()];
      buffer.duplicate().get(b);
      return b;
    } else if (v instanceof String s) {
      return s.getBytes(StandardCharsets.UTF_8);
    }
    return fail(type, v, field);
  }

  private GenericArray array(ArrayType type, Object v, String field) throws RecordConversionException {
    if (!(v instanceof List<?> list)) {
      return fail(type, v, field);
    }
    Object[] elements = new Object[list.size()];
    for (int i = 0; i < elements.length; i++) {
      elements[i] = value(type.getElementType(), list.get(i), field + "[" + i + "]");
    }
    return new GenericArray(elements);
  }

  private GenericMap map(MapType type, Object v, String field) throws RecordConversionException {
    if (!(v instanceof Map<?, ?> map)) {
      return fail(type, v, field);
    }
    Map<Object, Object> converted = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : map.entrySet()) {
      converted.put(value(type.getKeyType(), e.getKey(), field + ".key"),
          value(type.getValueType(), e.getValue(), field + "." + e.getKey()));
    }
    return new GenericMap(converted);
  }

  private static <T> T fail(DataType type, Object v, String field) throws RecordConversionException {
    throw new RecordConversionException(field, "a " + v.getClass().getSimpleName() + " value ("
        + abbreviate(v) + ") does not fit column type " + type);
  }

  private static String abbreviate(Object v) {
    String s = String.valueOf(v);
    return s.length() > 40 ? s.substring(0, 40) + "..." : s;
  }
}
