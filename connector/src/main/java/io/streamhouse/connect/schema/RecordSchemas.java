package io.streamhouse.connect.schema;

import io.streamhouse.connect.decode.Envelopes;
import io.streamhouse.connect.decode.InputMode;
import io.streamhouse.connect.decode.KafkaMetadata;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.schema.FieldType.Field;
import io.streamhouse.connect.schema.FieldType.Kind;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The row schema a record brings, in the planner's terms: from its Connect schema, or inferred from
 * JSON.
 */
public final class RecordSchemas {
  private RecordSchemas() {}

  /**
   * The schema of the row {@code record} writes under a route's {@code input} and {@code metadata}:
   * {@link #rowOf(SinkRecord, InputMode)} with the Kafka metadata column last, when the route has
   * one. Empty for a tombstone or a value that is not a row.
   *
   * @param route the route's name, for the error
   * @throws RecordConversionException if the row has a field of the metadata column's name
   */
  public static Optional<FieldType.Struct> rowOf(
      SinkRecord record, InputMode input, KafkaMetadata metadata, String route)
      throws RecordConversionException {
    Optional<FieldType.Struct> row = rowOf(record, input);
    if (row.isEmpty() || !metadata.enabled()) {
      return row;
    }
    if (row.get().field(metadata.column()).isPresent()) {
      throw new RecordConversionException(
          metadata.column(), KafkaMetadata.clashMessage(route, metadata.column()));
    }
    List<Field> fields = new ArrayList<>(row.get().fields());
    fields.add(new Field(metadata.column(), metadataType(metadata), true));
    return Optional.of(new FieldType.Struct(fields));
  }

  /**
   * The type of a route's Kafka metadata column: a struct of its optional fields, in the order of
   * {@link KafkaMetadata.Part}: topic string, partition int32, offset int64, timestamp (with time
   * zone), key string, headers map of string to string.
   */
  public static FieldType.Struct metadataType(KafkaMetadata metadata) {
    List<Field> fields = new ArrayList<>();
    for (KafkaMetadata.Part part : KafkaMetadata.Part.values()) {
      if (metadata.has(part)) {
        FieldType type =
            switch (part) {
              case TOPIC, KEY -> FieldType.of(Kind.STRING);
              case PARTITION -> FieldType.of(Kind.INT32);
              case OFFSET -> FieldType.of(Kind.INT64);
              case TIMESTAMP -> FieldType.of(Kind.TIMESTAMP);
              case HEADERS ->
                  new FieldType.MapOf(FieldType.of(Kind.STRING), FieldType.of(Kind.STRING));
            };
        fields.add(new Field(part.word(), type, true));
      }
    }
    return new FieldType.Struct(fields);
  }

  /**
   * The schema of the row {@code record} writes under a route's {@code input}: the value's, the
   * Debezium envelope's {@code after} (or {@code before}) image, or a flattened row without its
   * markers. Empty for a tombstone or a value that is not a row.
   */
  public static Optional<FieldType.Struct> rowOf(SinkRecord record, InputMode input) {
    Object value = record.value();
    if (value == null) {
      return Optional.empty();
    }
    if (input == InputMode.DEBEZIUM && Envelopes.isEnvelope(value)) {
      String side = Envelopes.imageSide(value);
      Object image = Envelopes.field(value, side);
      if (value instanceof Struct envelope) {
        // A hostile envelope may name no image, or a non-struct one (a truncate with a string
        // "after", say): not a row, and the writer reports the record.
        org.apache.kafka.connect.data.Field imageField = envelope.schema().field(side);
        return imageField == null || imageField.schema().type() != Schema.Type.STRUCT
            ? Optional.empty()
            : Optional.of(struct(imageField.schema(), List.of()));
      }
      return image instanceof Map<?, ?> map ? Optional.of(infer(map)) : Optional.empty();
    }
    List<String> skip = input == InputMode.DEBEZIUM ? List.copyOf(Envelopes.MARKERS) : List.of();
    if (record.valueSchema() != null) {
      return record.valueSchema().type() == Schema.Type.STRUCT
          ? Optional.of(struct(record.valueSchema(), skip))
          : Optional.empty();
    }
    if (value instanceof Map<?, ?> map) {
      FieldType.Struct inferred = infer(map);
      return Optional.of(
          new FieldType.Struct(
              inferred.fields().stream().filter(f -> !skip.contains(f.name())).toList()));
    }
    return Optional.empty();
  }

  /** The fields of a Connect struct schema. */
  public static FieldType.Struct of(Schema structSchema) {
    return struct(structSchema, List.of());
  }

  static FieldType.Struct struct(Schema schema, List<String> skip) {
    List<Field> fields = new ArrayList<>();
    for (org.apache.kafka.connect.data.Field f : schema.fields()) {
      if (!skip.contains(f.name())) {
        fields.add(new Field(f.name(), type(f.schema()), f.schema().isOptional()));
      }
    }
    return new FieldType.Struct(fields);
  }

  /** The planner's type of a Connect schema, logical types included. */
  public static FieldType type(Schema s) {
    String logical = s.name();
    if (Decimal.LOGICAL_NAME.equals(logical)) {
      int scale = Integer.parseInt(s.parameters().get(Decimal.SCALE_FIELD));
      String precision = s.parameters().get("connect.decimal.precision");
      return new FieldType.Decimal(precision == null ? 38 : Integer.parseInt(precision), scale);
    }
    if (Date.LOGICAL_NAME.equals(logical)) {
      return FieldType.of(Kind.DATE);
    }
    if (Time.LOGICAL_NAME.equals(logical)) {
      return FieldType.of(Kind.TIME);
    }
    if (Timestamp.LOGICAL_NAME.equals(logical)) {
      return FieldType.of(Kind.TIMESTAMP);
    }
    return switch (s.type()) {
      case INT8 -> FieldType.of(Kind.INT8);
      case INT16 -> FieldType.of(Kind.INT16);
      case INT32 -> FieldType.of(Kind.INT32);
      case INT64 -> FieldType.of(Kind.INT64);
      case FLOAT32 -> FieldType.of(Kind.FLOAT32);
      case FLOAT64 -> FieldType.of(Kind.FLOAT64);
      case BOOLEAN -> FieldType.of(Kind.BOOLEAN);
      case STRING -> FieldType.of(Kind.STRING);
      case BYTES -> FieldType.of(Kind.BYTES);
      case ARRAY -> new FieldType.ListOf(type(s.valueSchema()));
      case MAP -> new FieldType.MapOf(type(s.keySchema()), type(s.valueSchema()));
      case STRUCT -> struct(s, List.of());
    };
  }

  /**
   * Schemaless JSON: integers are int64, other numbers float64, objects structs, arrays lists of
   * their first element's type; null values and empty arrays say nothing and give no field.
   */
  public static FieldType.Struct infer(Map<?, ?> map) {
    List<Field> fields = new ArrayList<>();
    for (Map.Entry<?, ?> e : map.entrySet()) {
      FieldType type = infer(e.getValue());
      if (type != null) {
        fields.add(new Field(String.valueOf(e.getKey()), type, true));
      }
    }
    return new FieldType.Struct(fields);
  }

  private static FieldType infer(Object value) {
    if (value == null) {
      return null;
    } else if (value instanceof String) {
      return FieldType.of(Kind.STRING);
    } else if (value instanceof Boolean) {
      return FieldType.of(Kind.BOOLEAN);
    } else if (value instanceof Long
        || value instanceof Integer
        || value instanceof Short
        || value instanceof Byte) {
      return FieldType.of(Kind.INT64);
    } else if (value instanceof Float || value instanceof Double) {
      return FieldType.of(Kind.FLOAT64);
    } else if (value instanceof BigDecimal d) {
      return new FieldType.Decimal(Math.min(38, Math.max(d.precision(), d.scale())), d.scale());
    } else if (value instanceof List<?> list) {
      FieldType element = list.isEmpty() ? null : infer(list.get(0));
      return element == null ? null : new FieldType.ListOf(element);
    } else if (value instanceof Map<?, ?> nested) {
      FieldType.Struct struct = infer(nested);
      return struct.fields().isEmpty() ? null : struct;
    }
    return FieldType.of(Kind.STRING);
  }
}
