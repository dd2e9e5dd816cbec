package io.streamhouse.connect.converter;

import com.fasterxml.jackson.core.Base64Variants;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

/**
 * Reads one JSON value from a streaming parser straight into the Connect value {@code
 * JsonConverter} makes of it, against a schema or without one: the same Java types, the same
 * numbers (floating-point numbers go through {@link BigDecimal} as in {@code JsonConverter}'s
 * tree), the same defaults for nulls. Where {@code JsonConverter} would fail, or would take a value
 * of another JSON type than the schema's (it reads a string as boolean false, for instance), this
 * throws {@link NotHandled} and the caller hands the record to {@code JsonConverter}; so does
 * nesting deeper than {@link #MAX_DEPTH}.
 */
final class PayloadDecoder {
  /** The deepest nesting of arrays, maps and structs decoded here. */
  static final int MAX_DEPTH = 64;

  private final boolean replaceNullWithDefault;

  /**
   * Structs as {@link JsonRow}s and strings as {@link JsonText}s (against a schema), not as {@link
   * Struct}s and {@code String}s.
   */
  private final boolean rows;

  PayloadDecoder(boolean replaceNullWithDefault) {
    this(replaceNullWithDefault, false);
  }

  PayloadDecoder(boolean replaceNullWithDefault, boolean rows) {
    this.replaceNullWithDefault = replaceNullWithDefault;
    this.rows = rows;
  }

  /** The value whose first token is the parser's current token; the parser ends on its last. */
  Object read(JsonParser p, Schema schema) throws IOException {
    return read(p, schema, null, 0);
  }

  /**
   * {@link #read(JsonParser, Schema)} of a parser over {@code input} from {@code base}: in {@link
   * #rows} form a string without escapes is taken as its bytes of the input, once they are checked
   * to be well-formed UTF-8, instead of being decoded.
   */
  Object read(JsonParser p, Schema schema, byte[] input, int base) throws IOException {
    JacksonTokens tokens = new JacksonTokens(p, input, base);
    return schema == null ? readSchemaless(tokens, 0) : read(tokens, schema, 0);
  }

  /** The value against {@code schema} whose first token is the current one; ends on its last. */
  Object read(JsonTokens p, Schema schema) throws IOException {
    return read(p, schema, 0);
  }

  private Object read(JsonTokens p, Schema schema, int depth) throws IOException {
    JsonToken token = p.current();
    if (token == JsonToken.VALUE_NULL) {
      return nullFor(schema);
    }
    String name = schema.name();
    if (name != null) {
      switch (name) {
        case Decimal.LOGICAL_NAME:
          return decimal(p, token, schema);
        case Date.LOGICAL_NAME:
          return Date.toLogical(expect(schema, Schema.Type.INT32), intOnly(p, token));
        case Time.LOGICAL_NAME:
          return Time.toLogical(expect(schema, Schema.Type.INT32), intOnly(p, token));
        case Timestamp.LOGICAL_NAME:
          return Timestamp.toLogical(expect(schema, Schema.Type.INT64), integral(p, token));
        default:
          break;
      }
    }
    switch (schema.type()) {
      case BOOLEAN:
        if (token == JsonToken.VALUE_TRUE) {
          return Boolean.TRUE;
        }
        if (token == JsonToken.VALUE_FALSE) {
          return Boolean.FALSE;
        }
        throw NotHandled.INSTANCE;
      case INT8:
        return (byte) integral(p, token);
      case INT16:
        return (short) integral(p, token);
      case INT32:
        return (int) integral(p, token);
      case INT64:
        return integral(p, token);
      case FLOAT32:
        return token == JsonToken.VALUE_NUMBER_FLOAT
            ? p.decimalValue().floatValue()
            : (float) integral(p, token);
      case FLOAT64:
        return token == JsonToken.VALUE_NUMBER_FLOAT
            ? p.decimalValue().doubleValue()
            : (double) integral(p, token);
      case STRING:
        if (token != JsonToken.VALUE_STRING) {
          throw NotHandled.INSTANCE;
        }
        return rows ? p.utf8Text() : p.text();
      case BYTES:
        return base64(p, token);
      case ARRAY:
        return array(p, token, schema.valueSchema(), depth + 1);
      case MAP:
        return map(p, token, schema, depth + 1);
      case STRUCT:
        return struct(p, token, schema, depth + 1);
      default:
        throw NotHandled.INSTANCE;
    }
  }

  /** What {@code JsonConverter} makes of a JSON null or a missing field. */
  private Object nullFor(Schema schema) {
    if (replaceNullWithDefault && schema.defaultValue() != null) {
      return schema.defaultValue();
    }
    if (schema.isOptional()) {
      return null;
    }
    throw NotHandled.INSTANCE;
  }

  private static Schema expect(Schema schema, Schema.Type type) {
    if (schema.type() != type) {
      throw NotHandled.INSTANCE;
    }
    return schema;
  }

  /** An integer that fits in a long, as Jackson's tree holds it (IntNode or LongNode). */
  private static long integral(JsonTokens p, JsonToken token) throws IOException {
    if (token != JsonToken.VALUE_NUMBER_INT) {
      throw NotHandled.INSTANCE;
    }
    JsonParser.NumberType type = p.numberType();
    if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
      throw NotHandled.INSTANCE;
    }
    return p.longValue();
  }

  /** An integer that fits in an int: what {@code JsonNode.isInt()} accepts. */
  private static int intOnly(JsonTokens p, JsonToken token) throws IOException {
    if (token != JsonToken.VALUE_NUMBER_INT || p.numberType() != JsonParser.NumberType.INT) {
      throw NotHandled.INSTANCE;
    }
    return p.intValue();
  }

  private static BigDecimal decimal(JsonTokens p, JsonToken token, Schema schema)
      throws IOException {
    expect(schema, Schema.Type.BYTES);
    if (token == JsonToken.VALUE_NUMBER_FLOAT) {
      return p.decimalValue();
    }
    if (token == JsonToken.VALUE_NUMBER_INT) {
      return BigDecimal.valueOf(integral(p, token));
    }
    return Decimal.toLogical(schema, base64(p, token));
  }

  /** A JSON string as base64, decoded as Jackson's {@code TextNode.binaryValue()} does. */
  private static byte[] base64(JsonTokens p, JsonToken token) throws IOException {
    if (token != JsonToken.VALUE_STRING) {
      throw NotHandled.INSTANCE;
    }
    try {
      return Base64Variants.getDefaultVariant().decode(p.text().trim());
    } catch (IllegalArgumentException e) {
      throw NotHandled.INSTANCE;
    }
  }

  private List<Object> array(JsonTokens p, JsonToken token, Schema elements, int depth)
      throws IOException {
    if (token != JsonToken.START_ARRAY || depth > MAX_DEPTH) {
      throw NotHandled.INSTANCE;
    }
    List<Object> list = new ArrayList<>();
    while (p.next() != JsonToken.END_ARRAY) {
      list.add(read(p, elements, depth));
    }
    return list;
  }

  private Map<Object, Object> map(JsonTokens p, JsonToken token, Schema schema, int depth)
      throws IOException {
    if (depth > MAX_DEPTH) {
      throw NotHandled.INSTANCE;
    }
    Map<Object, Object> map = new HashMap<>();
    Schema values = schema.valueSchema();
    if (schema.keySchema().type() == Schema.Type.STRING) {
      if (token != JsonToken.START_OBJECT) {
        throw NotHandled.INSTANCE;
      }
      while (p.next() == JsonToken.FIELD_NAME) {
        String key = p.name();
        p.next();
        map.put(key, read(p, values, depth));
      }
      return map;
    }
    if (token != JsonToken.START_ARRAY) {
      throw NotHandled.INSTANCE;
    }
    while (p.next() != JsonToken.END_ARRAY) {
      if (p.current() != JsonToken.START_ARRAY) {
        throw NotHandled.INSTANCE;
      }
      // A key as Connect data even in rows form: equal keys must meet in the map as they do in
      // JsonConverter's (a row is equal only to itself).
      Object key = JsonRow.toConnect(read(next(p), schema.keySchema(), depth));
      Object value = read(next(p), values, depth);
      if (p.next() != JsonToken.END_ARRAY) {
        throw NotHandled.INSTANCE;
      }
      map.put(key, value);
    }
    return map;
  }

  private static JsonTokens next(JsonTokens p) throws IOException {
    JsonToken token = p.next();
    if (token == JsonToken.END_ARRAY || token == null) {
      throw NotHandled.INSTANCE;
    }
    return p;
  }

  /**
   * A struct: fields in any order, unknown fields skipped, a field given twice takes its last value
   * (as in Jackson's tree), a missing field is a null. In {@link #rows} form a {@link JsonRow}
   * whose values need none of {@link Struct#put}'s checks: each was read for its field's schema.
   */
  private Object struct(JsonTokens p, JsonToken token, Schema schema, int depth)
      throws IOException {
    if (token != JsonToken.START_OBJECT || depth > MAX_DEPTH) {
      throw NotHandled.INSTANCE;
    }
    List<Field> fields = schema.fields();
    Object[] values = new Object[fields.size()];
    boolean[] seen = new boolean[values.length];
    int next = 0; // JsonConverter writes the fields in schema order: try the next one first
    while (p.next() == JsonToken.FIELD_NAME) {
      Field field =
          next < fields.size() && p.nameIs(fields.get(next).name())
              ? fields.get(next)
              : schema.field(p.name());
      next = field == null ? next : field.index() + 1;
      JsonToken valueToken = p.next();
      if (field == null) {
        if (valueToken.isStructStart()) {
          p.skipChildren();
        }
        continue;
      }
      values[field.index()] = read(p, field.schema(), depth);
      seen[field.index()] = true;
    }
    if (rows) {
      for (int i = 0; i < values.length; i++) {
        if (!seen[i]) {
          values[i] = nullFor(fields.get(i).schema());
        }
      }
      return new JsonRow(schema, values);
    }
    Struct struct = new Struct(schema);
    for (int i = 0; i < values.length; i++) {
      Field field = fields.get(i);
      struct.put(field, seen[i] ? values[i] : nullFor(field.schema()));
    }
    return struct;
  }

  /** A value without a schema, as {@code JsonConverter} infers it. */
  private Object readSchemaless(JsonTokens p, int depth) throws IOException {
    JsonToken token = p.current();
    switch (token) {
      case VALUE_NULL:
        return null;
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case VALUE_NUMBER_INT:
        return integral(p, token);
      case VALUE_NUMBER_FLOAT:
        return p.decimalValue().doubleValue();
      case VALUE_STRING:
        return p.text();
      case START_ARRAY:
        {
          if (depth + 1 > MAX_DEPTH) {
            throw NotHandled.INSTANCE;
          }
          List<Object> list = new ArrayList<>();
          while (p.next() != JsonToken.END_ARRAY) {
            list.add(readSchemaless(p, depth + 1));
          }
          return list;
        }
      case START_OBJECT:
        {
          if (depth + 1 > MAX_DEPTH) {
            throw NotHandled.INSTANCE;
          }
          Map<Object, Object> map = new HashMap<>();
          while (p.next() == JsonToken.FIELD_NAME) {
            String key = p.name();
            p.next();
            map.put(key, readSchemaless(p, depth + 1));
          }
          return map;
        }
      default:
        throw NotHandled.INSTANCE;
    }
  }
}
