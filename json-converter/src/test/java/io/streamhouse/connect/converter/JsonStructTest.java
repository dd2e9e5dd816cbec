package io.streamhouse.connect.converter;

import static io.streamhouse.connect.converter.JsonPayloads.ORDER;
import static io.streamhouse.connect.converter.JsonPayloads.order;
import static io.streamhouse.connect.converter.JsonPayloads.secondReading;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.converter.api.DecodedStruct;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

/** The Struct FastJsonConverter returns is the Struct JsonConverter makes, to whoever reads it. */
class JsonStructTest {
  private static final String NOTE = "\u00e5se \u2603 \"quoted\\\"";

  @Test
  void overridesEveryPublicMethodOfStructButItsSchema() {
    List<String> missing = new ArrayList<>();
    for (Method m : Struct.class.getDeclaredMethods()) {
      if (!Modifier.isPublic(m.getModifiers())
          || Modifier.isStatic(m.getModifiers())
          || m.getName().equals("schema")) {
        continue;
      }
      try {
        JsonStruct.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
      } catch (NoSuchMethodException e) {
        missing.add(m.toString());
      }
    }
    assertThat(missing).as("Struct methods JsonStruct must decode first").isEmpty();
  }

  @Test
  void holdsItsRowUntilReadAndThenIsTheStructOfJsonConverter() {
    Struct expected = order("Ann", NOTE).put("status", "new"); // what JsonConverter reads back
    JsonStruct json = (JsonStruct) secondReading(expected);
    JsonRow row = json.undecodedRow();
    assertThat(row).isNotNull();
    assertThat(row.decoded(ORDER.field("note"))).isEqualTo(JsonText.of(NOTE));
    assertThat(row.decoded(ORDER.field("status"))).isEqualTo(JsonText.of("new"));
    assertThat(JsonRow.toConnect(row.decoded(ORDER.field("customer"))))
        .isEqualTo(expected.getStruct("customer"));
    assertThat(DecodedStruct.toConnect(json.decoded(ORDER.field("customer"))))
        .isEqualTo(expected.getStruct("customer"));
    assertThat(json.decoded(ORDER.field("tags")))
        .isEqualTo(List.of(JsonText.of("a"), JsonText.of("\u00fc")));
    assertThat(json.undecodedRow()).as("read as decoded, not made").isSameAs(row);

    assertThat(json.getString("note")).isEqualTo(NOTE);
    assertThat(json.undecodedRow()).isNull();
    assertThat(json.decoded(ORDER.field("note"))).as("from the Struct now").isEqualTo(NOTE);
    assertThat(json.toStruct()).isSameAs(json);
    assertThat(json).isEqualTo(expected);
    assertThat(json.hashCode()).isEqualTo(expected.hashCode());
    assertThat(json.toString()).isEqualTo(expected.toString());
    json.validate();
  }

  @Test
  void everyReadOrChangeDecodesFirst() {
    Struct expected = order("Ann", NOTE);
    assertThat(secondReading(expected).get("id")).isEqualTo(1L);
    assertThat(secondReading(expected).getInt64("id")).isEqualTo(1L);
    assertThat(secondReading(expected).getStruct("customer"))
        .isEqualTo(expected.getStruct("customer"));
    assertThat(secondReading(expected).getArray("tags")).isEqualTo(List.of("a", "\u00fc"));
    assertThat(secondReading(expected).getWithoutDefault("status")).isEqualTo("new");
    Struct changed = secondReading(expected).put("id", 8L);
    assertThat(changed.getString("note")).isEqualTo(NOTE);
    assertThat(changed.getInt64("id")).isEqualTo(8L);
    JsonStruct a = (JsonStruct) secondReading(expected);
    JsonStruct b = (JsonStruct) secondReading(expected);
    assertThat(a).isEqualTo(b);
    assertThat(a.undecodedRow()).isNull();
    assertThat(b.undecodedRow()).isNull();
  }

  @Test
  void aRowReadsANullAsItsFieldsDefaultAsStructDoes() {
    JsonRow row = new JsonRow(ORDER, new Object[ORDER.fields().size()]);
    assertThat(row.decoded(ORDER.field("status"))).isEqualTo("new");
    assertThat(row.decoded(ORDER.field("note"))).isNull();
    assertThat(new Struct(ORDER).get("status")).isEqualTo("new");
  }
}
