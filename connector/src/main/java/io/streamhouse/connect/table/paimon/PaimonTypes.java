package io.streamhouse.connect.table.paimon;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

/**
 * Connect schemas (and schemaless JSON values) to Paimon row types, for creating tables. Columns
 * are nullable except the primary key: a delete carries only the key, and Paimon refuses null in
 * a NOT NULL column even then.
 */
final class PaimonTypes {
  private PaimonTypes() {}

  /** The columns of a table whose rows look like {@code schema} / {@code value}, without {@code skip}. */
  static RowType rowType(Schema schema, Object value, Set<String> skip) {
    List<DataField> fields = new ArrayList<>();
    if (schema != null) {
      if (schema.type() != Schema.Type.STRUCT) {
        throw new IllegalArgumentException("the row is a " + schema.type() + ", not a struct: a table "
            + "needs named fields");
      }
      for (Field f : schema.fields()) {
        if (!skip.contains(f.name())) {
          fields.add(new DataField(fields.size(), f.name(), type(f.schema()).copy(true)));
        }
      }
    } else if (value instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) {
        DataType type = infer(e.getValue());
        if (type != null && !skip.contains(String.valueOf(e.getKey()))) {
          fields.add(new DataField(fields.size(), String.valueOf(e.getKey()), type));
        }
      }
    } else {
      throw new IllegalArgumentException("the row is neither a struct nor a JSON object");
    }
    return new RowType(fields);
  }

  static DataType type(Schema s) {
    String logical = s.name();
    boolean nullable = s.isOptional();
    if (Decimal.LOGICAL_NAME.equals(logical)) {
      int scale = Integer.parseInt(s.parameters().get(Decimal.SCALE_FIELD));
      String precision = s.parameters().get("connect.decimal.precision");
      return DataTypes.DECIMAL(precision == null ? 38 : Integer.parseInt(precision), scale).copy(nullable);
    }
    if (Date.LOGICAL_NAME.equals(logical)) {
      return DataTypes.DATE().copy(nullable);
    }
    if (Time.LOGICAL_NAME.equals(logical)) {
      return DataTypes.TIME(3).copy(nullable);
    }
    if (Timestamp.LOGICAL_NAME.equals(logical)) {
      return DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3).copy(nullable);
    }
    DataType type = switch (s.type()) {
      case INT8 -> DataTypes.TINYINT();
      case INT16 -> DataTypes.SMALLINT();
      case INT32 -> DataTypes.INT();
      case INT64 -> DataTypes.BIGINT();
      case FLOAT32 -> DataTypes.FLOAT();
      case FLOAT64 -> DataTypes.DOUBLE();
      case BOOLEAN -> DataTypes.BOOLEAN();
      case STRING -> DataTypes.STRING();
      case BYTES -> DataTypes.BYTES();
      case ARRAY -> DataTypes.ARRAY(type(s.valueSchema()));
      case MAP -> DataTypes.MAP(type(s.keySchema()).copy(false), type(s.valueSchema()));
      case STRUCT -> {
        List<DataField> fields = new ArrayList<>();
        for (Field f : s.fields()) {
          fields.add(new DataField(fields.size(), f.name(), type(f.schema())));
        }
        yield new RowType(fields);
      }
    };
    return type.copy(nullable);
  }

  /** Schemaless JSON: integers are BIGINT, numbers DOUBLE, objects ROW; null and [] give no column. */
  private static DataType infer(Object value) {
    if (value == null) {
      return null;
    } else if (value instanceof String) {
      return DataTypes.STRING();
    } else if (value instanceof Boolean) {
      return DataTypes.BOOLEAN();
    } else if (value instanceof Long || value instanceof Integer || value instanceof Short
        || value instanceof Byte) {
      return DataTypes.BIGINT();
    } else if (value instanceof Float || value instanceof Double) {
      return DataTypes.DOUBLE();
    } else if (value instanceof BigDecimal d) {
      return DataTypes.DECIMAL(Math.min(38, Math.max(d.precision(), d.scale())), d.scale());
    } else if (value instanceof List<?> list) {
      DataType element = list.isEmpty() ? null : infer(list.get(0));
      return element == null ? null : DataTypes.ARRAY(element);
    } else if (value instanceof Map<?, ?> nested) {
      List<DataField> fields = new ArrayList<>();
      for (Map.Entry<?, ?> e : nested.entrySet()) {
        DataType type = infer(e.getValue());
        if (type != null) {
          fields.add(new DataField(fields.size(), String.valueOf(e.getKey()), type));
        }
      }
      return fields.isEmpty() ? null : new RowType(fields);
    }
    return DataTypes.STRING();
  }
}
