package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.convert.FieldPaths;
import io.streamhouse.connect.convert.ValueCoercion;
import io.streamhouse.connect.converter.JsonRow;
import io.streamhouse.connect.converter.JsonStruct;
import io.streamhouse.connect.converter.JsonText;
import io.streamhouse.connect.errors.RecordConversionException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * A Connect value (a {@link Struct}, or a schemaless JSON map) to an Iceberg record of the table's
 * schema. The table schema decides: fields the table lacks are ignored, fields the value lacks are
 * null (an error for a required column), and values fit their columns by the policy both formats
 * share ({@link ValueCoercion}).
 *
 * <p>A value from {@code FastJsonConverter} that nothing has read yet ({@link JsonStruct}) is read
 * from its decoded row, without the Connect {@code Struct}; with {@code utf8Strings} its strings go
 * into the record as the UTF-8 bytes Parquet writes ({@link Utf8}), not as {@code String}s.
 */
public final class IcebergRecordConverter {
  /** Layouts kept per struct type. */
  private static final int MAX_LAYOUTS = 64;

  private final Schema schema;
  private final boolean utf8Strings;

  /** An empty record per struct type: copying it is cheaper than creating one by type. */
  private final Map<Types.StructType, GenericRecord> templates = new IdentityHashMap<>();

  private final FieldPaths paths = new FieldPaths();

  /**
   * Per struct type, per Connect schema of its values (by identity: converters hand out the same
   * schema object for every record of a schema), the source field of each column.
   */
  private final Map<Types.StructType, Map<org.apache.kafka.connect.data.Schema, Field[]>> layouts =
      new IdentityHashMap<>();

  public IcebergRecordConverter(Schema schema) {
    this(schema, false);
  }

  /**
   * {@code utf8Strings}: strings of undecoded {@link JsonStruct}s go into records as {@link Utf8}
   * (the writer of an append table with no partition of a string column, whose strings only Parquet
   * reads); otherwise every string is a {@code String}, as partition keys and key indexes compare
   * them.
   */
  public IcebergRecordConverter(Schema schema, boolean utf8Strings) {
    this.schema = schema;
    this.utf8Strings = utf8Strings;
  }

  public Record convert(Object value) throws RecordConversionException {
    if (value == null) {
      throw new RecordConversionException("<value>", "the record value is null");
    }
    if (value instanceof JsonStruct json && json.undecodedRow() != null) {
      return struct(schema.asStruct(), json.undecodedRow(), "");
    }
    return struct(schema.asStruct(), value, "");
  }

  /**
   * The value of the top-level column at {@code position} for {@code value} (a struct, a JSON
   * object, a scalar), fitted to the column's type as a record field would be.
   */
  public Object column(int position, Object value) throws RecordConversionException {
    return field(schema.columns().get(position), value, "");
  }

  private Record struct(Types.StructType type, Object value, String path)
      throws RecordConversionException {
    GenericRecord record = templates.computeIfAbsent(type, GenericRecord::create).copy();
    List<Types.NestedField> fields = type.fields();
    if (value instanceof Struct struct) {
      Field[] sources = layout(type, struct.schema());
      for (int i = 0; i < fields.size(); i++) {
        Object fieldValue = sources[i] == null ? null : struct.get(sources[i]);
        record.set(i, field(fields.get(i), fieldValue, path));
      }
    } else if (value instanceof JsonRow row) {
      Field[] sources = layout(type, row.schema());
      for (int i = 0; i < fields.size(); i++) {
        Object fieldValue = sources[i] == null ? null : row.get(sources[i]);
        record.set(i, field(fields.get(i), fieldValue, path));
      }
    } else if (value instanceof Map<?, ?> map) {
      for (int i = 0; i < fields.size(); i++) {
        Types.NestedField field = fields.get(i);
        record.set(i, field(field, map.get(field.name()), path));
      }
    } else {
      throw new RecordConversionException(
          path.isEmpty() ? "<value>" : path,
          "expected a struct or a JSON object, got " + value.getClass().getSimpleName());
    }
    return record;
  }

  /**
   * Per column of {@code type}, the field of {@code valueSchema} with its name (null: none), kept
   * per pair: looking each name up per record was about 3 % of a task thread (JFR).
   */
  private Field[] layout(Types.StructType type, org.apache.kafka.connect.data.Schema valueSchema) {
    Map<org.apache.kafka.connect.data.Schema, Field[]> bySchema =
        layouts.computeIfAbsent(type, t -> new IdentityHashMap<>());
    Field[] sources = bySchema.get(valueSchema);
    if (sources == null) {
      if (bySchema.size() >= MAX_LAYOUTS) {
        bySchema.clear(); // a converter that makes a new schema object per record
      }
      List<Types.NestedField> fields = type.fields();
      sources = new Field[fields.size()];
      for (int i = 0; i < sources.length; i++) {
        sources[i] = valueSchema.field(fields.get(i).name());
      }
      bySchema.put(valueSchema, sources);
    }
    return sources;
  }

  private Object field(Types.NestedField field, Object value, String parent)
      throws RecordConversionException {
    String path = paths.child(parent, field.name());
    if (value == null) {
      if (field.isRequired()) {
        throw new RecordConversionException(
            path, "required column '" + path + "' is missing or null");
      }
      return null;
    }
    return value(field.type(), value, path);
  }

  private Object value(Type type, Object value, String path) throws RecordConversionException {
    if (value instanceof JsonText text) {
      if (type.typeId() == Type.TypeID.STRING) {
        return utf8Strings ? new Utf8(text.utf8()) : text.toString();
      }
      value = text.toString(); // fitted to the column as the String would be
    } else if (value instanceof JsonRow row && type.typeId() != Type.TypeID.STRUCT) {
      value = row.toStruct();
    }
    return switch (type.typeId()) {
      case BOOLEAN -> ValueCoercion.toBoolean(value, path, type);
      case INTEGER ->
          (int) ValueCoercion.toLong(value, Integer.MIN_VALUE, Integer.MAX_VALUE, path, type);
      case LONG -> ValueCoercion.toLong(value, Long.MIN_VALUE, Long.MAX_VALUE, path, type);
      case FLOAT -> (float) ValueCoercion.toDouble(value, path, type);
      case DOUBLE -> ValueCoercion.toDouble(value, path, type);
      case DECIMAL -> {
        Types.DecimalType decimal = (Types.DecimalType) type;
        yield ValueCoercion.toDecimal(value, decimal.precision(), decimal.scale(), path, type);
      }
      case STRING -> ValueCoercion.toText(value, path, type);
      case BINARY, FIXED -> ByteBuffer.wrap(ValueCoercion.toBytes(value, path, type));
      case DATE -> ValueCoercion.toDate(value, path, type);
      case TIME -> ValueCoercion.toTime(value, path, type);
      case TIMESTAMP ->
          timestamp((Types.TimestampType) type, ValueCoercion.toInstant(value, path, type));
      case STRUCT -> struct(type.asStructType(), value, path);
      case LIST -> list(type.asListType(), value, path);
      case MAP -> map(type.asMapType(), value, path);
      default ->
          throw new RecordConversionException(path, "column type " + type + " is not supported");
    };
  }

  private static Object timestamp(Types.TimestampType type, Instant instant) {
    // Not Instant.atOffset: it looks up the offset's ZoneRules, a new object per call (JFR: ~4 % of
    // a task thread).
    LocalDateTime local =
        LocalDateTime.ofEpochSecond(instant.getEpochSecond(), instant.getNano(), ZoneOffset.UTC);
    return type.shouldAdjustToUTC() ? OffsetDateTime.of(local, ZoneOffset.UTC) : local;
  }

  private List<Object> list(Types.ListType type, Object value, String path)
      throws RecordConversionException {
    if (!(value instanceof List<?> list)) {
      throw ValueCoercion.misfit(value, path, type, null);
    }
    List<Object> result = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      Object element = list.get(i);
      if (element == null) {
        if (type.isElementRequired()) {
          throw new RecordConversionException(
              path,
              "list '" + path + "' has a null element at " + i + " but its elements are required");
        }
        result.add(null);
      } else {
        result.add(value(type.elementType(), element, paths.element(path, i)));
      }
    }
    return result;
  }

  private Map<Object, Object> map(Types.MapType type, Object value, String path)
      throws RecordConversionException {
    if (!(value instanceof Map<?, ?> map)) {
      throw ValueCoercion.misfit(value, path, type, null);
    }
    Map<Object, Object> result = new HashMap<>(map.size() * 2);
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (e.getKey() == null) {
        throw new RecordConversionException(path, "map '" + path + "' has a null key");
      }
      Object key = value(type.keyType(), e.getKey(), paths.child(path, "key"));
      Object v =
          e.getValue() == null
              ? null
              : value(type.valueType(), e.getValue(), paths.child(path, "value"));
      if (v == null && type.isValueRequired()) {
        throw new RecordConversionException(
            path, "map '" + path + "' has a null value but values are required");
      }
      result.put(key, v);
    }
    return result;
  }
}
