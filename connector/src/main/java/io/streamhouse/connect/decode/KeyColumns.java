package io.streamhouse.connect.decode;

import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;

/** The primary key of a table a route creates: the route's, or the fields of the Kafka key. */
public final class KeyColumns {
  private KeyColumns() {}

  /**
   * {@code configured} when it is set; otherwise the field names of {@code sample}'s key (a struct,
   * or a JSON object without a schema); empty when the key has no fields.
   */
  public static List<String> of(List<String> configured, SinkRecord sample) {
    if (!configured.isEmpty()) {
      return configured;
    }
    Schema keySchema = sample.keySchema();
    if (keySchema != null && keySchema.type() == Schema.Type.STRUCT) {
      return keySchema.fields().stream().map(Field::name).toList();
    }
    if (keySchema == null && sample.key() instanceof Map<?, ?> map) {
      return map.keySet().stream().map(String::valueOf).toList();
    }
    return List.of();
  }
}
