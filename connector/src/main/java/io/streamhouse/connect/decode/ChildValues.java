package io.streamhouse.connect.decode;

import io.streamhouse.connect.converter.api.DecodedStruct;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * The value of a named child of a record value, read from untrusted data: a field of a Connect
 * {@link Struct} or an entry of a schemaless {@link Map}. Any other value, or one without that
 * child, gives null.
 */
public final class ChildValues {
  private ChildValues() {}

  /**
   * Field {@code name} of a {@link Struct} (as {@link Struct#get(Field)} gives it, its default for
   * a null) or entry {@code name} of a {@link Map}; null for any other value or a missing child.
   */
  public static Object get(Object value, String name) {
    if (value instanceof Struct struct) {
      Field field = struct.schema().field(name);
      return field == null ? null : struct.get(field);
    }
    if (value instanceof Map<?, ?> map) {
      return map.get(name);
    }
    return null;
  }

  /**
   * As {@link #get}, except that a {@link DecodedStruct} (a converter's struct, which may or may
   * not be a {@code Struct}) is read through {@link DecodedStruct#decoded} without the {@code
   * Struct} being made; the child is then Connect data ({@link DecodedStruct#toConnect}), as {@link
   * #get} would give it.
   */
  public static Object getDecoded(Object value, String name) {
    if (value instanceof DecodedStruct decoded) {
      Field field = decoded.schema().field(name);
      return field == null ? null : DecodedStruct.toConnect(decoded.decoded(field));
    }
    return get(value, name);
  }
}
