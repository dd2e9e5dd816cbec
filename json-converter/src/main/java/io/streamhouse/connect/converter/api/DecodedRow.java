package io.streamhouse.connect.converter.api;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * A struct as a converter decoded it, whose fields a sink can read without the Connect objects
 * ({@link Struct}s, {@code String}s) being made: the row of a {@link DecodedStruct}, and the form
 * of the structs nested in it.
 *
 * <p>A sink reads each field with {@link #decoded}; a string it writes as UTF-8 it takes from
 * {@link Utf8Text#utf8()}, any other string form from its {@code toString()}. A class rather than
 * an interface for the same reason as {@link Utf8Text}: a sink tests every nested value for it.
 */
public abstract class DecodedRow {
  /** For the row forms of converters. */
  protected DecodedRow() {}

  /** The struct's schema (a Connect struct schema). */
  public abstract Schema schema();

  /**
   * The value of {@code field}, a field of {@link #schema}, as {@link Struct#get(Field)} gives it
   * (its default for a null), except that a string may be a {@link Utf8Text} and a struct a {@code
   * DecodedRow}, in lists and maps too: {@link #toConnect} makes it Connect data.
   */
  public abstract Object decoded(Field field);

  /** This row as Connect data: the {@code Struct} of the same schema and values. */
  public abstract Struct toStruct();

  /**
   * {@code value}, as {@link #decoded} gives it, as Connect data: every {@link Utf8Text} a {@code
   * String} and every {@code DecodedRow} a {@code Struct}, in lists and maps too.
   */
  public static Object toConnect(Object value) {
    if (value instanceof Utf8Text text) {
      return text.toString();
    }
    if (value instanceof DecodedRow row) {
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
}
