package io.streamhouse.connect.schema;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The format-neutral type of a column or a record field, what the evolution planner compares.
 * Iceberg and Paimon types map onto it in their adapters; Connect schemas in {@link RecordSchemas}.
 */
public sealed interface FieldType {
  /** Primitive kinds; the integer and floating kinds are ordered narrow to wide. */
  enum Kind {
    INT8,
    INT16,
    INT32,
    INT64,
    FLOAT32,
    FLOAT64,
    BOOLEAN,
    STRING,
    BYTES,
    DATE,
    TIME,
    TIMESTAMP
  }

  record Primitive(Kind kind) implements FieldType {
    @Override
    public String toString() {
      return kind.name().toLowerCase(Locale.ROOT);
    }
  }

  record Decimal(int precision, int scale) implements FieldType {
    @Override
    public String toString() {
      return "decimal(" + precision + "," + scale + ")";
    }
  }

  record ListOf(FieldType element) implements FieldType {
    @Override
    public String toString() {
      return "list<" + element + ">";
    }
  }

  record MapOf(FieldType key, FieldType value) implements FieldType {
    @Override
    public String toString() {
      return "map<" + key + "," + value + ">";
    }
  }

  /** A named field of a struct; {@code optional} fields may be null. */
  record Field(String name, FieldType type, boolean optional) {}

  record Struct(List<Field> fields) implements FieldType {
    public Struct {
      fields = List.copyOf(fields);
    }

    public Optional<Field> field(String name) {
      return fields.stream().filter(f -> f.name().equals(name)).findFirst();
    }

    @Override
    public String toString() {
      return "struct<"
          + String.join(
              ",",
              fields.stream()
                  .map(f -> f.name() + ":" + f.type() + (f.optional() ? "" : " not null"))
                  .toList())
          + ">";
    }
  }

  static FieldType of(Kind kind) {
    return new Primitive(kind);
  }
}
