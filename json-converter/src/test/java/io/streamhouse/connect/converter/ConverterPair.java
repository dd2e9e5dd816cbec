package io.streamhouse.connect.converter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;

/** Kafka's JsonConverter and ours, configured alike, and the check that they read alike. */
final class ConverterPair {
  final JsonConverter reference = new JsonConverter();
  final FastJsonConverter fast = new FastJsonConverter();

  ConverterPair(Map<String, ?> configs) {
    reference.configure(configs, false);
    fast.configure(configs, false);
  }

  /**
   * Both read {@code bytes} into equal schemas and values, or both refuse them with a {@link
   * DataException}; returns what ours read (null when refused).
   */
  SchemaAndValue assertSameReading(byte[] bytes) {
    SchemaAndValue expected = null;
    Throwable expectedError = null;
    try {
      expected = reference.toConnectData("t", bytes);
    } catch (RuntimeException e) {
      expectedError = e;
    }
    SchemaAndValue[] actual = new SchemaAndValue[1];
    Throwable actualError = catchThrowable(() -> actual[0] = fast.toConnectData("t", bytes));
    String input =
        bytes == null ? "null" : new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    if (expectedError != null) {
      assertThat(actualError).as("refusal of %s", input).isInstanceOf(DataException.class);
      return null;
    }
    assertThat(actualError).as("reading %s", input).isNull();
    assertThat(actual[0].schema()).as("schema of %s", input).isEqualTo(expected.schema());
    assertThat(comparable(actual[0].value()))
        .as("value of %s", input)
        .isEqualTo(comparable(expected.value()));
    return actual[0];
  }

  /** A value whose equals compares byte arrays by content, structs by schema and fields. */
  static Object comparable(Object value) {
    if (value instanceof byte[] bytes) {
      return ByteBuffer.wrap(bytes);
    }
    if (value instanceof Struct struct) {
      Map<String, Object> fields = new LinkedHashMap<>();
      fields.put("$schema", struct.schema());
      for (Field field : struct.schema().fields()) {
        fields.put(field.name(), comparable(struct.get(field)));
      }
      return fields;
    }
    if (value instanceof List<?> list) {
      List<Object> copy = new ArrayList<>();
      list.forEach(v -> copy.add(comparable(v)));
      return copy;
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> copy = new HashMap<>();
      map.forEach((k, v) -> copy.put(comparable(k), comparable(v)));
      return copy;
    }
    if (value != null) {
      // The exact class matters (Byte against Short, Float against Double): keep it in view.
      return List.of(value.getClass().getName(), value);
    }
    return null;
  }

  static Schema schemaOf(SchemaAndValue read) {
    return read == null ? null : read.schema();
  }
}
