package io.streamhouse.connect.table.iceberg;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

/** Connect schemas (and schemaless JSON values) to Iceberg schemas, for creating tables. */
final class IcebergSchemas {
  private IcebergSchemas() {}

  /** The table schema for a record: from its Connect schema, or inferred from a schemaless map. */
  static Schema forRecord(org.apache.kafka.connect.data.Schema valueSchema, Object value) {
    AtomicInteger ids = new AtomicInteger(0);
    if (valueSchema != null) {
      if (valueSchema.type() != org.apache.kafka.connect.data.Schema.Type.STRUCT) {
        throw new IllegalArgumentException("the record value is a " + valueSchema.type()
            + ", not a struct: a table needs named fields");
      }
      return new Schema(fields(valueSchema.fields(), ids));
    }
    if (value instanceof Map<?, ?> map) {
      return new Schema(inferFields(map, ids));
    }
    throw new IllegalArgumentException("the record value is neither a struct nor a JSON object");
  }

  private static List<Types.NestedField> fields(Collection<Field> fields, AtomicInteger ids) {
    List<Types.NestedField> result = new ArrayList<>();
    for (Field f : fields) {
      int id = ids.incrementAndGet();
      Type type = type(f.schema(), ids);
      result.add(f.schema().isOptional() ? Types.NestedField.optional(id, f.name(), type)
          : Types.NestedField.required(id, f.name(), type));
    }
    return result;
  }

  static Type type(org.apache.kafka.connect.data.Schema s, AtomicInteger ids) {
    String logical = s.name();
    if (Decimal.LOGICAL_NAME.equals(logical)) {
      int scale = Integer.parseInt(s.parameters().get(Decimal.SCALE_FIELD));
      String precision = s.parameters() == null ? null
          : s.parameters().get("connect.decimal.precision");
      return Types.DecimalType.of(precision == null ? 38 : Integer.parseInt(precision), scale);
    }
    if (Date.LOGICAL_NAME.equals(logical)) {
      return Types.DateType.get();
    }
    if (Time.LOGICAL_NAME.equals(logical)) {
      return Types.TimeType.get();
    }
    if (Timestamp.LOGICAL_NAME.equals(logical)) {
      return Types.TimestampType.withZone();
    }
    return switch (s.type()) {
      case INT8, INT16, INT32 -> Types.IntegerType.get();
      case INT64 -> Types.LongType.get();
      case FLOAT32 -> Types.FloatType.get();
      case FLOAT64 -> Types.DoubleType.get();
      case BOOLEAN -> Types.BooleanType.get();
      case STRING -> Types.StringType.get();
      case BYTES -> Types.BinaryType.get();
      case STRUCT -> Types.StructType.of(fields(s.fields(), ids));
      case ARRAY -> {
        int elementId = ids.incrementAndGet();
        Type element = type(s.valueSchema(), ids);
        yield s.valueSchema().isOptional() ? Types.ListType.ofOptional(elementId, element)
            : Types.ListType.ofRequired(elementId, element);
      }
      case MAP -> {
        int keyId = ids.incrementAndGet();
        int valueId = ids.incrementAndGet();
        Type key = type(s.keySchema(), ids);
        Type value = type(s.valueSchema(), ids);
        yield s.valueSchema().isOptional() ? Types.MapType.ofOptional(keyId, valueId, key, value)
            : Types.MapType.ofRequired(keyId, valueId, key, value);
      }
    };
  }

  private static List<Types.NestedField> inferFields(Map<?, ?> map, AtomicInteger ids) {
    List<Types.NestedField> result = new ArrayList<>();
    for (Map.Entry<?, ?> e : map.entrySet()) {
      Type type = infer(e.getValue(), ids);
      if (type != null) {
        result.add(Types.NestedField.optional(ids.incrementAndGet(), String.valueOf(e.getKey()), type));
      }
    }
    return result;
  }

  /** Schemaless JSON: integers are long, numbers double, objects structs; null and [] give no column. */
  private static Type infer(Object value, AtomicInteger ids) {
    if (value == null) {
      return null;
    } else if (value instanceof String) {
      return Types.StringType.get();
    } else if (value instanceof Boolean) {
      return Types.BooleanType.get();
    } else if (value instanceof Integer || value instanceof Long || value instanceof Short
        || value instanceof Byte) {
      return Types.LongType.get();
    } else if (value instanceof Float || value instanceof Double) {
      return Types.DoubleType.get();
    } else if (value instanceof BigDecimal d) {
      return Types.DecimalType.of(Math.max(d.precision(), d.scale()), d.scale());
    } else if (value instanceof List<?> list) {
      Type element = list.isEmpty() ? null : infer(list.get(0), ids);
      return element == null ? null : Types.ListType.ofOptional(ids.incrementAndGet(), element);
    } else if (value instanceof Map<?, ?> nested) {
      List<Types.NestedField> fields = inferFields(nested, ids);
      return fields.isEmpty() ? null : Types.StructType.of(fields);
    }
    return Types.StringType.get();
  }
}
