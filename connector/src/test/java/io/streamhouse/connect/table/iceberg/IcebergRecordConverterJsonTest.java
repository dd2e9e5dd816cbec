package io.streamhouse.connect.table.iceberg;

import static io.streamhouse.connect.converter.JsonPayloads.ORDER;
import static io.streamhouse.connect.converter.JsonPayloads.order;
import static io.streamhouse.connect.converter.JsonPayloads.secondReading;
import static io.streamhouse.connect.converter.JsonPayloads.sparse;
import static io.streamhouse.connect.converter.JsonPayloads.unmade;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.schema.RecordSchemas;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

/**
 * A payload of FastJsonConverter converts to the same Iceberg record read from its decoded row as
 * from its Connect Struct; with UTF-8 strings, the strings are the same text as Utf8.
 */
class IcebergRecordConverterJsonTest {
  private final Schema table = IcebergColumns.schemaFor(RecordSchemas.of(ORDER));

  @Test
  void aDecodedRowConvertsAsItsStructWouldWithoutBecomingOne() throws Exception {
    for (Struct value : List.of(order("Ann", "\u00e5se \u2603 \"quoted\\\""), sparse())) {
      Struct json = secondReading(value);
      Record fromRow = new IcebergRecordConverter(table).convert(json);
      assertThat(unmade(json)).as("read without the Struct").isTrue();
      Record fromStruct = new IcebergRecordConverter(table).convert(value);
      assertThat(fromRow).isEqualTo(fromStruct);

      Record utf8 = new IcebergRecordConverter(table, true).convert(secondReading(value));
      if (value.get("note") != null) {
        assertThat(utf8.getField("note")).isInstanceOf(Utf8.class);
      }
      assertThat(strings(utf8)).isEqualTo(strings(fromStruct));
    }
  }

  @Test
  void aRowReadBeforeConvertsAsAStruct() throws Exception {
    Struct value = order("Bo", "plain");
    Struct json = secondReading(value);
    assertThat(json.get("id")).isEqualTo(1L); // a router or a transformation read it
    assertThat(unmade(json)).isFalse();
    assertThat(new IcebergRecordConverter(table, true).convert(json))
        .isEqualTo(new IcebergRecordConverter(table).convert(value));
  }

  /** The record with every CharSequence made a String, to compare Utf8 with String values. */
  private static Object strings(Object value) {
    if (value instanceof CharSequence text) {
      return text.toString();
    }
    if (value instanceof Record record) {
      List<Object> fields = new ArrayList<>();
      for (int i = 0; i < record.size(); i++) {
        fields.add(strings(record.get(i)));
      }
      return fields;
    }
    if (value instanceof List<?> list) {
      return list.stream().map(IcebergRecordConverterJsonTest::strings).toList();
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> copy = new HashMap<>();
      map.forEach((k, v) -> copy.put(strings(k), strings(v)));
      return copy;
    }
    return value;
  }
}
