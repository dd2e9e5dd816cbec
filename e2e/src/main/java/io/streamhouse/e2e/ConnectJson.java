package io.streamhouse.e2e;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Connect {@code JsonConverter} schemas: builds the {@code {"schema": .., "payload": ..}} envelope
 * that a converter with {@code schemas.enable=true} expects.
 */
public final class ConnectJson {
  private ConnectJson() {}

  /** A struct schema under construction. */
  public static final class StructSchema {
    private final String name;
    private final List<Map<String, Object>> fields = new ArrayList<>();
    private boolean optional;

    private StructSchema(String name) {
      this.name = name;
    }

    /**
     * A primitive field: {@code type} is a JsonConverter type name: int8..int64, float, double,
     * boolean, string, bytes.
     */
    public StructSchema field(String field, String type, boolean optional) {
      Map<String, Object> f = new LinkedHashMap<>();
      f.put("field", field);
      f.put("type", type);
      f.put("optional", optional);
      fields.add(f);
      return this;
    }

    /** A field with a full schema (logical types, nested structs, arrays, maps). */
    public StructSchema field(String field, Map<String, Object> schema) {
      Map<String, Object> f = new LinkedHashMap<>(schema);
      f.put("field", field);
      fields.add(f);
      return this;
    }

    public StructSchema optional() {
      this.optional = true;
      return this;
    }

    public Map<String, Object> toMap() {
      Map<String, Object> schema = new LinkedHashMap<>();
      schema.put("type", "struct");
      schema.put("name", name);
      schema.put("optional", optional);
      schema.put("fields", fields);
      return schema;
    }
  }

  public static StructSchema struct(String name) {
    return new StructSchema(name);
  }

  /** The value a schema-enabled JsonConverter reads. */
  public static Map<String, Object> envelope(StructSchema schema, Map<String, Object> payload) {
    Map<String, Object> envelope = new LinkedHashMap<>();
    envelope.put("schema", schema.toMap());
    envelope.put("payload", payload);
    return envelope;
  }
}
