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
 * ({@link Struct}s, {@code String}s) being made.
 *
 * <p>What a converter implements: the {@link Struct} its {@code toConnectData} returns may be a
 * subclass that holds the decoded values and becomes the plain {@code Struct} only when something
 * (a transformation, a check) reads it through the {@code Struct} API; that subclass implements
 * this interface, and so does the form of its nested structs, which need not be {@code Struct}s.
 * {@code FastJsonConverter} does both.
 *
 * <p>What a sink does with it: it checks a value for this interface before it reads it as a {@code
 * Struct}, and reads each field with {@link #decoded}; a string it writes as UTF-8 it takes from
 * {@link Utf8Text#utf8()}, any other string form from its {@code toString()}. Every other value
 * (any other converter's output, a {@code Struct} a transformation made) it reads through Connect's
 * {@code Struct} API, as it would without this interface.
 */
public interface DecodedStruct {
  /** The struct's schema (a Connect struct schema). */
  Schema schema();

  /**
   * The value of {@code field}, a field of {@link #schema}, as {@link Struct#get(Field)} gives it
   * (its default for a null), except that a string may be a {@link Utf8Text} and a struct a {@code
   * DecodedStruct}, in lists and maps too: {@link #toConnect} makes it Connect data.
   */
  Object decoded(Field field);

  /** This struct as Connect data: the {@code Struct} of the same schema and values. */
  Struct toStruct();

  /**
   * {@code value}, as {@link #decoded} gives it, as Connect data: every {@link Utf8Text} a {@code
   * String} and every {@code DecodedStruct} a {@code Struct}, in lists and maps too.
   */
  static Object toConnect(Object value) {
    if (value instanceof Utf8Text text) {
      return text.toString();
    }
    if (value instanceof DecodedStruct struct) {
      return struct.toStruct();
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
