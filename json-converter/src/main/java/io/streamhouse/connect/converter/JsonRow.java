package io.streamhouse.connect.converter;

import io.streamhouse.connect.converter.api.DecodedStruct;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * A struct of a payload that {@link FastJsonConverter} decoded, before it is a Connect {@link
 * Struct}: its field values by field index, as the {@code Struct} would hold them, except that
 * strings are {@link JsonText} and structs {@code JsonRow}s, in lists and maps too. A sink reads it
 * as a {@link DecodedStruct}, without the {@code Struct}; {@link #toStruct} makes the {@code
 * Struct} that {@code JsonConverter} would have made.
 */
final class JsonRow implements DecodedStruct {
  private final Schema schema;
  private final Object[] values;

  JsonRow(Schema schema, Object[] values) {
    this.schema = schema;
    this.values = values;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  /** The value of {@code field} as {@link Struct#get(Field)} reads it: its default for a null. */
  @Override
  public Object decoded(Field field) {
    Object value = values[field.index()];
    return value == null ? field.schema().defaultValue() : value;
  }

  /** The Connect struct of this row, with the checks of {@link Struct#put(Field, Object)}. */
  @Override
  public Struct toStruct() {
    Struct struct = new Struct(schema);
    fill(struct);
    return struct;
  }

  /** Puts this row's values into {@code struct}, of this row's schema. */
  void fill(Struct struct) {
    List<Field> fields = schema.fields();
    for (int i = 0; i < fields.size(); i++) {
      struct.put(fields.get(i), toConnect(values[i]));
    }
  }

  /**
   * {@code value} with every {@link JsonText} a {@code String} and every row a {@code Struct}, as
   * {@link DecodedStruct#toConnect} makes it; it tests for this class where that tests for the
   * interface, which costs more for every value that is not one (most field values).
   */
  static Object toConnect(Object value) {
    if (value instanceof JsonText text) {
      return text.toString();
    }
    if (value instanceof JsonRow row) {
      return row.toStruct();
    }
    if (value instanceof List<?> list) {
      List<Object> copy = new ArrayList<>(list.size());
      for (Object element : list) {
        copy.add(toConnect(element));
      }
      return copy;
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> copy = new HashMap<>(map.size() * 2);
      for (Map.Entry<?, ?> e : map.entrySet()) {
        copy.put(toConnect(e.getKey()), toConnect(e.getValue()));
      }
      return copy;
    }
    return value;
  }

  @Override
  public String toString() {
    return toStruct().toString();
  }
}
