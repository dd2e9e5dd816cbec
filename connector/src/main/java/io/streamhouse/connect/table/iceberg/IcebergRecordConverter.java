package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.table.RecordConversionException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.data.Struct;

/**
 * A Connect value (a {@link Struct}, or a schemaless JSON map) to an Iceberg record of the table's
 * schema. The table schema decides: fields the table lacks are ignored, fields the value lacks
 * are null (an error for a required column), and values are converted where no precision is lost.
 */
final class IcebergRecordConverter {
  private final Schema schema;
  /** An empty record per struct type: copying it is cheaper than creating one by type. */
  private final Map<Types.StructType, GenericRecord> templates = new java.util.IdentityHashMap<>();

  IcebergRecordConverter(Schema schema) {
    this.schema = schema;
  }

  Record convert(Object value) throws RecordConversionException {
    if (value == null) {
      throw new RecordConversionException("<value>", "the record value is null");
    }
    return struct(schema.asStruct(), value, "");
  }

  private Record struct(Types.StructType type, Object value, String path) throws RecordConversionException {
    GenericRecord record = templates.computeIfAbsent(type, GenericRecord::create).copy();
    List<Types.NestedField> fields = type.fields();
    if (value instanceof Struct struct) {
      org.apache.kafka.connect.data.Schema valueSchema = struct.schema();
      for (int i = 0; i < fields.size(); i++) {
        Types.NestedField field = fields.get(i);
        org.apache.kafka.connect.data.Field source = valueSchema.field(field.name());
        Object fieldValue = source == null ? null : struct.get(source);
        record.set(i, field(field, fieldValue, path));
      }
    } else if (value instanceof Map<?, ?> map) {
      for (int i = 0; i < fields.size(); i++) {
        Types.NestedField field = fields.get(i);
        record.set(i, field(field, map.get(field.name()), path));
      }
    } else {
      throw new RecordConversionException(path.isEmpty() ? "<value>" : path,
          "expected a struct or JSON object, got " + describe(value));
    }
    return record;
  }

  private Object field(Types.NestedField field, Object value, String parent)
      throws RecordConversionException {
    String path = parent.isEmpty() ? field.name() : parent + "." + field.name();
    if (value == null) {
      if (field.isRequired()) {
        throw new RecordConversionException(path, "required column '" + path + "' is missing or null");
      }
      return null;
    }
    return value(field.type(), value, path);
  }

  private Object value(Type type, Object value, String path) throws RecordConversionException {
    try {
      return switch (type.typeId()) {
        case BOOLEAN -> bool(value, path);
        case INTEGER -> Math.toIntExact(integral(value, path));
        case LONG -> integral(value, path);
        case FLOAT -> (float) floating(value, path);
        case DOUBLE -> floating(value, path);
        case DECIMAL -> decimal((Types.DecimalType) type, value, path);
        case STRING -> string(value, path);
        case BINARY, FIXED -> bytes(value, path);
        case DATE -> date(value, path);
        case TIME -> time(value, path);
        case TIMESTAMP -> timestamp((Types.TimestampType) type, value, path);
        case STRUCT -> struct(type.asStructType(), value, path);
        case LIST -> list(type.asListType(), value, path);
        case MAP -> map(type.asMapType(), value, path);
        default -> throw new RecordConversionException(path, "column type " + type + " is not supported");
      };
    } catch (ArithmeticException | NumberFormatException | DateTimeParseException e) {
      throw new RecordConversionException(path, "value " + describe(value) + " does not fit column '"
          + path + "' of type " + type + ": " + e.getMessage(), e);
    }
  }

  private static boolean bool(Object value, String path) throws RecordConversionException {
    if (value instanceof Boolean b) {
      return b;
    }
    if (value instanceof String s && (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false"))) {
      return Boolean.parseBoolean(s);
    }
    throw mismatch(path, "boolean", value);
  }

  private static long integral(Object value, String path) throws RecordConversionException {
    if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    if (value instanceof BigDecimal d) {
      return d.longValueExact();
    }
    if (value instanceof BigInteger i) {
      return i.longValueExact();
    }
    if ((value instanceof Double || value instanceof Float) && ((Number) value).doubleValue() % 1 == 0) {
      return BigDecimal.valueOf(((Number) value).doubleValue()).longValueExact();
    }
    if (value instanceof String s) {
      return Long.parseLong(s.trim());
    }
    throw mismatch(path, "integer", value);
  }

  private static double floating(Object value, String path) throws RecordConversionException {
    if (value instanceof Number n) {
      return n.doubleValue();
    }
    if (value instanceof String s) {
      return Double.parseDouble(s.trim());
    }
    throw mismatch(path, "floating-point", value);
  }

  private static BigDecimal decimal(Types.DecimalType type, Object value, String path)
      throws RecordConversionException {
    BigDecimal d;
    if (value instanceof BigDecimal b) {
      d = b;
    } else if (value instanceof Number n) {
      d = new BigDecimal(n.toString());
    } else if (value instanceof String s) {
      d = new BigDecimal(s.trim());
    } else {
      throw mismatch(path, "decimal", value);
    }
    BigDecimal scaled = d.setScale(type.scale(), java.math.RoundingMode.UNNECESSARY);
    if (scaled.precision() > type.precision()) {
      throw new RecordConversionException(path, "value " + d + " needs precision " + scaled.precision()
          + " but column '" + path + "' is " + type);
    }
    return scaled;
  }

  private static String string(Object value, String path) throws RecordConversionException {
    if (value instanceof String s) {
      return s;
    }
    if (value instanceof Number || value instanceof Boolean) {
      return value.toString();
    }
    throw mismatch(path, "string", value);
  }

  private static ByteBuffer bytes(Object value, String path) throws RecordConversionException {
    if (value instanceof byte[] b) {
      return ByteBuffer.wrap(b);
    }
    if (value instanceof ByteBuffer b) {
      return b;
    }
    if (value instanceof String s) {
      try {
        return ByteBuffer.wrap(Base64.getDecoder().decode(s));
      } catch (IllegalArgumentException e) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
      }
    }
    throw mismatch(path, "bytes", value);
  }

  private static LocalDate date(Object value, String path) throws RecordConversionException {
    if (value instanceof java.util.Date d) {
      return LocalDate.ofEpochDay(TimeUnit.MILLISECONDS.toDays(d.getTime()));
    }
    if (value instanceof Integer || value instanceof Long) {
      return LocalDate.ofEpochDay(((Number) value).longValue());
    }
    if (value instanceof String s) {
      return LocalDate.parse(s.trim());
    }
    throw mismatch(path, "date", value);
  }

  private static LocalTime time(Object value, String path) throws RecordConversionException {
    if (value instanceof java.util.Date d) {
      return LocalTime.ofNanoOfDay(TimeUnit.MILLISECONDS.toNanos(d.getTime()));
    }
    if (value instanceof Integer || value instanceof Long) {
      return LocalTime.ofNanoOfDay(TimeUnit.MILLISECONDS.toNanos(((Number) value).longValue()));
    }
    if (value instanceof String s) {
      return LocalTime.parse(s.trim());
    }
    throw mismatch(path, "time", value);
  }

  private static Object timestamp(Types.TimestampType type, Object value, String path)
      throws RecordConversionException {
    Instant instant;
    if (value instanceof java.util.Date d) {
      instant = d.toInstant();
    } else if (value instanceof Long || value instanceof Integer) {
      instant = Instant.ofEpochMilli(((Number) value).longValue());
    } else if (value instanceof String s) {
      instant = parseInstant(s.trim());
    } else {
      throw mismatch(path, "timestamp", value);
    }
    // Not Instant.atOffset: it looks up the offset's ZoneRules, a new object per call (JFR: ~4 % of a task thread).
    LocalDateTime local = LocalDateTime.ofEpochSecond(instant.getEpochSecond(), instant.getNano(), ZoneOffset.UTC);
    return type.shouldAdjustToUTC() ? OffsetDateTime.of(local, ZoneOffset.UTC) : local;
  }

  private static Instant parseInstant(String s) {
    try {
      return OffsetDateTime.parse(s.replace(' ', 'T')).toInstant();
    } catch (DateTimeParseException e) {
      return LocalDateTime.parse(s.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
    }
  }

  private List<Object> list(Types.ListType type, Object value, String path) throws RecordConversionException {
    if (!(value instanceof List<?> list)) {
      throw mismatch(path, "list", value);
    }
    List<Object> result = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      Object element = list.get(i);
      if (element == null) {
        if (type.isElementRequired()) {
          throw new RecordConversionException(path, "list '" + path + "' has a null element at " + i
              + " but its elements are required");
        }
        result.add(null);
      } else {
        result.add(value(type.elementType(), element, path + "[" + i + "]"));
      }
    }
    return result;
  }

  private Map<Object, Object> map(Types.MapType type, Object value, String path) throws RecordConversionException {
    if (!(value instanceof Map<?, ?> map)) {
      throw mismatch(path, "map", value);
    }
    Map<Object, Object> result = new HashMap<>(map.size() * 2);
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (e.getKey() == null) {
        throw new RecordConversionException(path, "map '" + path + "' has a null key");
      }
      Object key = value(type.keyType(), e.getKey(), path + ".key");
      Object v = e.getValue() == null ? null : value(type.valueType(), e.getValue(), path + ".value");
      if (v == null && type.isValueRequired()) {
        throw new RecordConversionException(path, "map '" + path + "' has a null value but values are required");
      }
      result.put(key, v);
    }
    return result;
  }

  private static RecordConversionException mismatch(String path, String expected, Object value) {
    return new RecordConversionException(path, "column '" + path + "' expects a " + expected
        + " value, got " + describe(value));
  }

  private static String describe(Object value) {
    String text = String.valueOf(value);
    if (text.length() > 60) {
      text = text.substring(0, 57) + "...";
    }
    return value == null ? "null" : value.getClass().getSimpleName() + " '" + text + "'";
  }
}
