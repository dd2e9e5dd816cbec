package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.converter.api.DecodedStruct;
import io.streamhouse.connect.converter.api.Utf8Text;
import io.streamhouse.connect.decode.ValueCoercion;
import io.streamhouse.connect.decode.ValuePath;
import io.streamhouse.connect.errors.RecordConversionException;
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
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * Connect values (structs, or maps of schemaless JSON) to Paimon rows of one table's row type,
 * matching fields by name. A field the value lacks is null; values fit their columns by the policy
 * both formats share ({@link ValueCoercion}); a value that does not fit (a word into an int, an int
 * that overflows, a null in a NOT NULL column) is a {@link RecordConversionException} naming the
 * field. A struct a converter decoded ({@link DecodedStruct}, as {@code FastJsonConverter} makes
 * them) is read as decoded, without its Connect {@code Struct}, its UTF-8 strings ({@link
 * Utf8Text}) going into the row as the bytes they are.
 */
public final class PaimonRowConverter {
  private final RowType rowType;

  /** Per Connect struct schema, the position of each table column in it (-1: absent). */
  private final Map<org.apache.kafka.connect.data.Schema, Field[]> layouts =
      new IdentityHashMap<>();

  /** Where in the value the conversion is, named only by errors. */
  private final ValuePath path = new ValuePath();

  public PaimonRowConverter(RowType rowType) {
    this.rowType = rowType;
  }

  /** The row of {@code kind}; with {@code keyOnly} only {@code keyFields} must be present. */
  public GenericRow convert(Object value, RowKind kind, boolean keyOnly, List<String> keyFields)
      throws RecordConversionException {
    path.reset();
    GenericRow row = row(rowType, value, kind);
    List<DataField> fields = rowType.getFields();
    for (int i = 0; i < fields.size(); i++) {
      DataField f = fields.get(i);
      if (row.isNullAt(i)
          && (keyFields.contains(f.name()) || (!f.type().isNullable() && !keyOnly))) {
        throw new RecordConversionException(
            f.name(),
            keyFields.contains(f.name())
                ? "primary key field '" + f.name() + "' is missing or null"
                : "column '" + f.name() + "' is NOT NULL but the record has no value for it");
      }
    }
    return row;
  }

  /**
   * The value of the top-level column at {@code position} for {@code value} (a struct, a JSON
   * object, a scalar), fitted to the column's type as a record field would be.
   */
  public Object column(int position, Object value) throws RecordConversionException {
    DataField field = rowType.getFields().get(position);
    path.reset();
    path.enter(field.name());
    return value(field.type(), value);
  }

  private GenericRow row(RowType type, Object value, RowKind kind)
      throws RecordConversionException {
    List<DataField> fields = type.getFields();
    GenericRow row = new GenericRow(kind, fields.size());
    if (value instanceof DecodedStruct decoded) {
      Field[] layout = layouts.computeIfAbsent(decoded.schema(), s -> layout(fields, s));
      for (int i = 0; i < fields.size(); i++) {
        if (layout[i] != null) {
          DataField f = fields.get(i);
          row.setField(i, field(f, decoded.decoded(layout[i])));
        }
      }
    } else if (value instanceof Struct struct) {
      Field[] layout = layouts.computeIfAbsent(struct.schema(), s -> layout(fields, s));
      for (int i = 0; i < fields.size(); i++) {
        if (layout[i] != null) {
          DataField f = fields.get(i);
          row.setField(i, field(f, struct.get(layout[i])));
        }
      }
    } else if (value instanceof Map<?, ?> map) {
      for (int i = 0; i < fields.size(); i++) {
        DataField f = fields.get(i);
        row.setField(i, field(f, map.get(f.name())));
      }
    } else if (value != null) {
      throw new RecordConversionException(
          path.toString(),
          "expected a struct or a JSON object, got " + value.getClass().getSimpleName());
    }
    return row;
  }

  private static Field[] layout(
      List<DataField> fields, org.apache.kafka.connect.data.Schema schema) {
    Field[] layout = new Field[fields.size()];
    for (int i = 0; i < fields.size(); i++) {
      layout[i] = schema.field(fields.get(i).name());
    }
    return layout;
  }

  private Object field(DataField field, Object v) throws RecordConversionException {
    if (v == null) {
      return null;
    }
    path.enter(field.name());
    Object converted = value(field.type(), v);
    path.leave();
    return converted;
  }

  private Object value(DataType type, Object v) throws RecordConversionException {
    if (v == null) {
      return null;
    }
    if (v instanceof Utf8Text text) {
      DataTypeRoot root = type.getTypeRoot();
      if (root == DataTypeRoot.CHAR || root == DataTypeRoot.VARCHAR) {
        return BinaryString.fromBytes(text.utf8());
      }
      v = text.toString(); // fitted to the column as the String would be
    }
    return switch (type.getTypeRoot()) {
      case BOOLEAN -> ValueCoercion.toBoolean(v, path, type);
      case TINYINT -> (byte) ValueCoercion.toLong(v, Byte.MIN_VALUE, Byte.MAX_VALUE, path, type);
      case SMALLINT ->
          (short) ValueCoercion.toLong(v, Short.MIN_VALUE, Short.MAX_VALUE, path, type);
      case INTEGER ->
          (int) ValueCoercion.toLong(v, Integer.MIN_VALUE, Integer.MAX_VALUE, path, type);
      case BIGINT -> ValueCoercion.toLong(v, Long.MIN_VALUE, Long.MAX_VALUE, path, type);
      case FLOAT -> (float) ValueCoercion.toDouble(v, path, type);
      case DOUBLE -> ValueCoercion.toDouble(v, path, type);
      case DECIMAL -> decimal((DecimalType) type, v, path);
      case CHAR, VARCHAR -> BinaryString.fromString(ValueCoercion.toText(v, path, type));
      case BINARY, VARBINARY -> ValueCoercion.toBytes(v, path, type);
      case DATE -> (int) ValueCoercion.toDate(v, path, type).toEpochDay();
      case TIME_WITHOUT_TIME_ZONE ->
          (int) (ValueCoercion.toTime(v, path, type).toNanoOfDay() / 1_000_000L);
      case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
          timestamp(ValueCoercion.toInstant(v, path, type));
      case ARRAY -> array((ArrayType) type, v);
      case MAP -> map((MapType) type, v);
      case ROW -> row((RowType) type, v, RowKind.INSERT);
      default ->
          throw new RecordConversionException(
              path.toString(), "column type " + type + " is not supported");
    };
  }

  private static Timestamp timestamp(java.time.Instant instant) {
    return Timestamp.fromEpochMillis(instant.toEpochMilli(), instant.getNano() % 1_000_000);
  }

  private static Decimal decimal(DecimalType type, Object v, ValuePath field)
      throws RecordConversionException {
    return Decimal.fromBigDecimal(
        ValueCoercion.toDecimal(v, type.getPrecision(), type.getScale(), field, type),
        type.getPrecision(),
        type.getScale());
  }

  private GenericArray array(ArrayType type, Object v) throws RecordConversionException {
    if (!(v instanceof List<?> list)) {
      throw ValueCoercion.misfit(v, path, type, null);
    }
    Object[] elements = new Object[list.size()];
    for (int i = 0; i < elements.length; i++) {
      path.enterElement(i);
      elements[i] = value(type.getElementType(), list.get(i));
      path.leave();
    }
    return new GenericArray(elements);
  }

  private GenericMap map(MapType type, Object v) throws RecordConversionException {
    if (!(v instanceof Map<?, ?> map)) {
      throw ValueCoercion.misfit(v, path, type, null);
    }
    Map<Object, Object> converted = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : map.entrySet()) {
      path.enter("key");
      Object key = value(type.getKeyType(), e.getKey());
      path.leave();
      path.enter(e.getKey());
      converted.put(key, value(type.getValueType(), e.getValue()));
      path.leave();
    }
    return new GenericMap(converted);
  }
}
