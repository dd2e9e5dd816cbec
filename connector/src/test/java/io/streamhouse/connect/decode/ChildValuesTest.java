package io.streamhouse.connect.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.converter.JsonPayloads;
import io.streamhouse.connect.converter.api.DecodedStruct;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

class ChildValuesTest {
  private static final Schema SCHEMA =
      SchemaBuilder.struct()
          .field("id", Schema.STRING_SCHEMA)
          .field("status", SchemaBuilder.string().optional().defaultValue("new").build())
          .build();

  @Test
  void readsAFieldOfAStructWithItsDefaultForANull() {
    Struct struct = new Struct(SCHEMA).put("id", "tx-1");

    assertThat(ChildValues.get(struct, "id")).isEqualTo("tx-1");
    assertThat(ChildValues.get(struct, "status")).isEqualTo("new");
    assertThat(ChildValues.get(struct, "missing")).isNull();
    assertThat(ChildValues.getDecoded(struct, "id")).isEqualTo("tx-1");
    assertThat(ChildValues.getDecoded(struct, "status")).isEqualTo("new");
    assertThat(ChildValues.getDecoded(struct, "missing")).isNull();
  }

  @Test
  void readsAnEntryOfASchemalessMap() {
    Map<String, Object> map = new HashMap<>();
    map.put("id", "tx-1");
    map.put("status", null);

    assertThat(ChildValues.get(map, "id")).isEqualTo("tx-1");
    assertThat(ChildValues.get(map, "status")).isNull();
    assertThat(ChildValues.get(map, "missing")).isNull();
    assertThat(ChildValues.getDecoded(map, "id")).isEqualTo("tx-1");
    assertThat(ChildValues.getDecoded(map, "missing")).isNull();
  }

  @Test
  void anyOtherValueHasNoChildren() {
    for (Object value : new Object[] {null, "id", 42L, List.of("id")}) {
      assertThat(ChildValues.get(value, "id")).as("%s", value).isNull();
      assertThat(ChildValues.getDecoded(value, "id")).as("%s", value).isNull();
    }
  }

  @Test
  void getDecodedReadsAConverterStructAsConnectDataWithoutMakingIt() {
    Struct value = JsonPayloads.secondReading(JsonPayloads.order("Ann", "orders_eu"));
    Struct customer = new Struct(JsonPayloads.CUSTOMER).put("name", "Ann").put("city", "Oslo");

    assertThat(ChildValues.getDecoded(value, "note")).isInstanceOf(String.class);
    assertThat(ChildValues.getDecoded(value, "note")).isEqualTo("orders_eu");
    assertThat(ChildValues.getDecoded(value, "customer")).isEqualTo(customer);
    assertThat(ChildValues.getDecoded(value, "missing")).isNull();
    assertThat(JsonPayloads.unmade(value)).as("read without the Struct").isTrue();

    assertThat(ChildValues.get(value, "customer")).isEqualTo(customer);
    assertThat(JsonPayloads.unmade(value)).as("read through the Struct API").isFalse();
  }

  @Test
  void onlyGetDecodedReadsADecodedStructThatIsNoStruct() {
    Struct value = JsonPayloads.secondReading(JsonPayloads.order("Ann", "orders_eu"));
    Object nested = ((DecodedStruct) value).decoded(value.schema().field("customer"));
    assertThat(nested).isInstanceOf(DecodedStruct.class).isNotInstanceOf(Struct.class);

    assertThat(ChildValues.getDecoded(nested, "name")).isEqualTo("Ann");
    assertThat(ChildValues.get(nested, "name")).isNull();
  }
}
