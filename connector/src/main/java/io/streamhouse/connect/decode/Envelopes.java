package io.streamhouse.connect.decode;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/** Debezium shapes: the envelope ({@code op}, {@code before}, {@code after}) and flattened rows. */
public final class Envelopes {
  public static final String OP_FIELD = "__op";
  public static final String DELETED_FIELD = "__deleted";

  /** Fields of a flattened Debezium row that are markers, not columns. */
  public static final Set<String> MARKERS = Set.of(OP_FIELD, DELETED_FIELD);

  private Envelopes() {}

  /**
   * True for a Debezium envelope: a struct or map with {@code op} and {@code after} or {@code
   * before}.
   */
  public static boolean isEnvelope(Object value) {
    if (value instanceof Struct s) {
      Schema schema = s.schema();
      return schema.field("op") != null
          && (schema.field("after") != null || schema.field("before") != null);
    }
    return value instanceof Map<?, ?> m
        && m.containsKey("op")
        && (m.containsKey("after") || m.containsKey("before"));
  }

  /**
   * The name of the envelope side that holds the row: {@code after}, or {@code before} for a
   * delete.
   */
  public static String imageSide(Object envelope) {
    return field(envelope, "after") != null ? "after" : "before";
  }

  /** A field of a struct or a JSON object, null when absent. */
  public static Object field(Object value, String name) {
    if (value instanceof Struct s) {
      return s.schema().field(name) == null ? null : s.get(name);
    }
    return value instanceof Map<?, ?> m ? m.get(name) : null;
  }
}
