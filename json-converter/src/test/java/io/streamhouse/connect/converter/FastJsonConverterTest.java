package io.streamhouse.connect.converter;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** FastJsonConverter reads what Kafka's JsonConverter reads, into equal data, or refuses alike. */
class FastJsonConverterTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final int ROUNDS = 3000;

  @ParameterizedTest
  @ValueSource(strings = {"base64", "numeric"})
  void readsRandomSchemasAndValuesAsJsonConverterDoes(String decimalFormat) {
    ConverterPair pair = new ConverterPair(Map.of("decimal.format", decimalFormat));
    RandomConnectData data = new RandomConnectData(7);
    int read = 0;
    for (int i = 0; i < ROUNDS; i++) {
      Schema schema = data.schema(3);
      Object value = data.value(schema);
      byte[] bytes = pair.reference.fromConnectData("t", schema, value);
      // Twice: the first reading parses the schema, the second finds it in the cache.
      pair.assertSameReading(bytes);
      if (pair.assertSameReading(bytes) != null) {
        read++;
      }
    }
    assertThat(read).as("records read rather than refused").isGreaterThan(ROUNDS / 2);
  }

  @Test
  void readsReorderedSpacedAndEditedEnvelopesAsJsonConverterDoes() throws Exception {
    ConverterPair pair = new ConverterPair(Map.of());
    RandomConnectData data = new RandomConnectData(11);
    Random random = new Random(11);
    for (int i = 0; i < ROUNDS; i++) {
      Schema schema = data.schema(3);
      byte[] bytes = pair.reference.fromConnectData("t", schema, data.value(schema));
      pair.assertSameReading(bytes);
      JsonNode tree = MAPPER.readTree(bytes);
      edit(tree.get("payload"), random);
      pair.assertSameReading(MAPPER.writeValueAsBytes(tree));
      pair.assertSameReading(MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(tree));
      pair.assertSameReading(MAPPER.writeValueAsBytes(shuffled(tree, random)));
    }
  }

  @Test
  void readsRandomSchemalessValuesAsJsonConverterDoes() throws Exception {
    ConverterPair pair = new ConverterPair(Map.of("schemas.enable", false));
    ConverterPair withSchemas = new ConverterPair(Map.of());
    RandomConnectData data = new RandomConnectData(13);
    for (int i = 0; i < ROUNDS; i++) {
      Schema schema = data.schema(3);
      byte[] bytes = withSchemas.reference.fromConnectData("t", schema, data.value(schema));
      pair.assertSameReading(bytes);
      pair.assertSameReading(MAPPER.writeValueAsBytes(MAPPER.readTree(bytes).get("payload")));
    }
    for (String json : List.of("1", "-0", "1.5e3", "\"s\"", "null", "true", "[]", "{}", "[1,{}]")) {
      pair.assertSameReading(json.getBytes(UTF_8));
    }
  }

  @Test
  void decodesEveryRecordOfAKnownSchemaItselfWhateverItsSpacing() {
    ConverterPair pair = new ConverterPair(Map.of());
    Schema inner = SchemaBuilder.struct().field("x", Schema.STRING_SCHEMA).build();
    Schema schema =
        SchemaBuilder.struct()
            .field("id", Schema.INT64_SCHEMA)
            .field("flag", Schema.OPTIONAL_BOOLEAN_SCHEMA)
            .field("n", SchemaBuilder.int32().optional().defaultValue(3).build())
            .field("f", Schema.FLOAT64_SCHEMA)
            .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
            .field("inner", inner)
            .field("byName", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT16_SCHEMA).build())
            .field("byId", SchemaBuilder.map(Schema.INT8_SCHEMA, Schema.BYTES_SCHEMA).build())
            .field("price", Decimal.schema(2))
            .field("day", Date.SCHEMA)
            .field("at", Time.SCHEMA)
            .field("ts", Timestamp.SCHEMA)
            .build();
    Random random = new Random(3);
    for (int i = 0; i < 200; i++) {
      Struct value =
          new Struct(schema)
              .put("id", random.nextLong())
              .put("flag", random.nextBoolean() ? null : random.nextBoolean())
              .put("n", random.nextBoolean() ? null : random.nextInt())
              .put("f", random.nextDouble() * 1e6)
              .put("tags", List.of("a" + i, "é🎁\"\\"))
              .put("inner", new Struct(inner).put("x", "y" + i))
              .put("byName", Map.of("k", (short) i))
              .put("byId", Map.of((byte) i, new byte[] {1, (byte) i}))
              .put("price", BigDecimal.valueOf(random.nextInt(), 2))
              .put("day", new java.util.Date(86_400_000L * random.nextInt(30_000)))
              .put("at", new java.util.Date(random.nextInt(86_400_000)))
              .put("ts", new java.util.Date(random.nextLong() >> 20));
      String json = new String(pair.reference.fromConnectData("t", schema, value), UTF_8);
      pair.assertSameReading(json.getBytes(UTF_8));
      pair.assertSameReading(("{ \"schema\" : " + json.substring(10)).getBytes(UTF_8));
      pair.assertSameReading((json + "\n").getBytes(UTF_8));
    }
    assertThat(pair.fast.handedOver()).as("records read by JsonConverter").isEqualTo(1);
  }

  /**
   * A map with struct keys comes as an array of pairs: a key given twice keeps its last value, as
   * in JsonConverter's map, though the fast path holds structs as rows.
   */
  @Test
  void readsAMapWithStructKeysGivenTwiceAsJsonConverterDoes() {
    ConverterPair pair = new ConverterPair(Map.of());
    Schema key = SchemaBuilder.struct().name("K").field("k", Schema.STRING_SCHEMA).build();
    Schema schema =
        SchemaBuilder.struct()
            .name("M")
            .field("m", SchemaBuilder.map(key, Schema.STRING_SCHEMA).build())
            .build();
    Struct value = new Struct(schema).put("m", Map.of(new Struct(key).put("k", "a"), "first"));
    String json = new String(pair.reference.fromConnectData("t", schema, value), UTF_8);
    String twice = json.replace("\"first\"]", "\"first\"],[{\"k\":\"a\"},\"second\"]");
    assertThat(twice).contains("second");
    pair.assertSameReading(twice.getBytes(UTF_8));
    SchemaAndValue read = pair.assertSameReading(twice.getBytes(UTF_8));
    assertThat(((Struct) read.value()).getMap("m")).containsOnlyKeys(new Struct(key).put("k", "a"));
    assertThat(((Struct) read.value()).getMap("m").values()).containsExactly("second");
  }

  @Test
  void honoursReplaceNullWithDefault() {
    Schema schema =
        SchemaBuilder.struct()
            .field("a", SchemaBuilder.int32().optional().defaultValue(5).build())
            .build();
    String json =
        "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":true,"
            + "\"default\":5,\"field\":\"a\"}],\"optional\":false},\"payload\":{\"a\":null}}";
    for (boolean replace : new boolean[] {true, false}) {
      ConverterPair pair = new ConverterPair(Map.of("replace.null.with.default", replace));
      pair.assertSameReading(json.getBytes(UTF_8));
      SchemaAndValue read = pair.assertSameReading(json.getBytes(UTF_8));
      assertThat(((Struct) read.value()).getWithoutDefault("a")).isEqualTo(replace ? 5 : null);
      assertThat(read.schema()).isEqualTo(schema);
    }
  }

  @Test
  void readsAllMixesOfTypesAndNullsTheFastPathLeavesToJsonConverter() {
    ConverterPair pair = new ConverterPair(Map.of());
    String schema =
        "{\"type\":\"struct\",\"fields\":[{\"type\":\"boolean\",\"optional\":true,\"field\":\"b\"},"
            + "{\"type\":\"string\",\"optional\":true,\"field\":\"s\"},"
            + "{\"type\":\"int32\",\"optional\":true,\"field\":\"i\"},"
            + "{\"type\":\"int64\",\"optional\":false,\"name\":\"org.apache.kafka.connect.data"
            + ".Timestamp\",\"version\":1,\"field\":\"ts\"},"
            + "{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"optional\":true,\"field\":\"l\"}"
            + "],\"optional\":false}";
    List<String> payloads =
        List.of(
            "{\"ts\":1}",
            "{\"ts\":1,\"b\":\"yes\",\"s\":5,\"i\":\"x\",\"l\":{\"a\":\"b\"}}",
            "{\"ts\":1,\"i\":1.9,\"s\":null,\"extra\":[1,{\"x\":[]}]}",
            "{\"ts\":1,\"i\":99999999999}",
            "{\"ts\":1,\"i\":123456789012345678901234567890}",
            "{\"ts\":1.5}",
            "{\"ts\":\"2026\"}",
            "{\"ts\":null}",
            "{\"ts\":1,\"ts\":2}",
            "{\"ts\":1,\"i\":007}",
            "{\"ts\":1,\"l\":[\"a\",null]}",
            "[]",
            "\"struct\"",
            "null");
    for (String payload : payloads) {
      String json = "{\"schema\":" + schema + ",\"payload\":" + payload + "}";
      pair.assertSameReading(json.getBytes(UTF_8));
      pair.assertSameReading(json.getBytes(UTF_8));
    }
  }

  @Test
  void refusesHostileInputWithADataExceptionAsJsonConverterDoes() {
    ConverterPair pair = new ConverterPair(Map.of());
    byte[] good = timestampRecord().getBytes(UTF_8);
    pair.assertSameReading(good);
    List<byte[]> hostile = new ArrayList<>();
    for (int cut = 0; cut < good.length; cut++) {
      hostile.add(java.util.Arrays.copyOf(good, cut));
    }
    Random random = new Random(5);
    for (int i = 0; i < 2000; i++) {
      byte[] flipped = good.clone();
      flipped[random.nextInt(flipped.length)] = (byte) random.nextInt(256);
      hostile.add(flipped);
    }
    hostile.add(new byte[0]);
    hostile.add(new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, 2});
    hostile.add("not json".getBytes(UTF_8));
    hostile.add("{\"schema\":null,\"payload\":1}".getBytes(UTF_8));
    hostile.add("{\"payload\":1,\"schema\":{\"type\":\"int64\"}}".getBytes(UTF_8));
    hostile.add("{\"schema\":{\"type\":\"int64\"},\"payload\":1,\"more\":2}".getBytes(UTF_8));
    hostile.add("{\"schema\":{\"type\":\"int64\"},\"payload\":1e999999}".getBytes(UTF_8));
    hostile.add(
        ("{\"schema\":{\"type\":\"int64\"},\"payload\":" + "9".repeat(5000) + "}").getBytes(UTF_8));
    hostile.add(
        ("{\"schema\":{\"type\":\"float64\"},\"payload\":1" + "0".repeat(5000) + ".5}")
            .getBytes(UTF_8));
    hostile.add(("{\"schema\":{\"type\":\"int64\"},\"payload\":1} trailing").getBytes(UTF_8));
    hostile.add(("{\"schema\":{\"type\":\"int64\"},\"payload\":1}}").getBytes(UTF_8));
    hostile.add("{\"schema\":{\"type\":\"nope\"},\"payload\":1}".getBytes(UTF_8));
    hostile.add(deepArray(200_000).getBytes(UTF_8));
    hostile.add(("{\"schema\":" + deepArraySchema(2_000) + ",\"payload\":[]}").getBytes(UTF_8));
    hostile.add(
        ("{\"schema\":" + deepArraySchema(100) + ",\"payload\":" + deepArray(100) + "}")
            .getBytes(UTF_8));
    for (byte[] bytes : hostile) {
      pair.assertSameReading(bytes);
    }
    assertThat(pair.fast.toConnectData("t", null)).isEqualTo(SchemaAndValue.NULL);
  }

  /**
   * Past the lengths Jackson's read constraints allow, a record of a known schema is refused as
   * JsonConverter refuses it, though the fast path reads its payload without Jackson.
   */
  @Test
  void refusesNumbersNamesAndStringsTooLongForJacksonInARecordOfAKnownSchema() {
    ConverterPair pair = new ConverterPair(Map.of());
    String number = "{\"schema\":{\"type\":\"double\"},\"payload\":";
    pair.assertSameReading((number + "1.5}").getBytes(UTF_8));
    assertThat(pair.fast.cachedSchemas()).isEqualTo(1);
    for (int digits : List.of(899, 999, 1000, 1001, 5000)) {
      pair.assertSameReading((number + "1" + "0".repeat(digits) + ".5}").getBytes(UTF_8));
      pair.assertSameReading((number + "-1" + "0".repeat(digits) + "}").getBytes(UTF_8));
    }
    String struct =
        "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"field\":\"s\",\"type\":\"string\","
            + "\"optional\":true}],\"optional\":false},\"payload\":";
    pair.assertSameReading((struct + "{\"s\":\"x\"}}").getBytes(UTF_8));
    assertThat(pair.fast.cachedSchemas()).isEqualTo(2);
    for (int length : List.of(49_999, 50_001, 100_000)) {
      pair.assertSameReading(
          (struct + "{\"" + "n".repeat(length) + "\":1,\"s\":\"x\"}}").getBytes(UTF_8));
    }
    for (int length : List.of(4_000_001, 20_000_001)) {
      pair.assertSameReading((struct + "{\"s\":\"" + "t".repeat(length) + "\"}}").getBytes(UTF_8));
    }
    assertThat(pair.fast.cachedSchemas()).isEqualTo(2);
  }

  @Test
  void refusesARecordThatDoesNotFitItsSchemaAsJsonConverterDoes() {
    FastJsonConverter fast = new FastJsonConverter();
    fast.configure(Map.of(), false);
    String schema = "{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"field\":\"a\"}]}";
    fast.toConnectData("t", ("{\"schema\":" + schema + ",\"payload\":{\"a\":1}}").getBytes(UTF_8));
    assertThatThrownBy(
            () ->
                fast.toConnectData(
                    "t", ("{\"schema\":" + schema + ",\"payload\":{}}").getBytes(UTF_8)))
        .isInstanceOf(DataException.class);
    assertThatThrownBy(
            () ->
                fast.toConnectData(
                    "t", ("{\"schema\":" + schema + ",\"payload\":[{\"a\":1}]}").getBytes(UTF_8)))
        .isInstanceOf(DataException.class);
  }

  @Test
  void keepsNoSchemaFromAnEnvelopeThatNamesASecondSchema() {
    ConverterPair pair = new ConverterPair(Map.of());
    String int64 = "{\"type\":\"int64\"}";
    String text = "{\"type\":\"string\"}";
    List<String> records =
        List.of(
            "{\"schema\":" + int64 + ",\"payload\":1,\"schema\":" + text + "}",
            "{\"schema\":" + int64 + ",\"payload\":\"x\"}",
            "{\"schema\":" + int64 + ",\"payload\":2}",
            "{\"schema\":" + int64 + ",\"payload\":\"x\"}");
    for (String json : records) {
      pair.assertSameReading(json.getBytes(UTF_8));
    }
  }

  @Test
  void keepsAtMostSchemasCacheSizeSchemasAndFindsEachByItsBytes() {
    ConverterPair pair = new ConverterPair(Map.of("schemas.cache.size", 3));
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 5; i++) {
        String schema =
            "{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"field\":\"f" + i + "\"}]}";
        String json = "{\"schema\":" + schema + ",\"payload\":{\"f" + i + "\":" + round + "}}";
        SchemaAndValue read = pair.assertSameReading(json.getBytes(UTF_8));
        assertThat(read.schema().field("f" + i)).isNotNull();
      }
    }
    assertThat(pair.fast.cachedSchemas()).isEqualTo(3);
  }

  @Test
  void serializesAsJsonConverterDoes() {
    ConverterPair pair = new ConverterPair(Map.of("decimal.format", "numeric"));
    RandomConnectData data = new RandomConnectData(17);
    for (int i = 0; i < 500; i++) {
      Schema schema = data.schema(3);
      Object value = data.value(schema);
      assertThat(pair.fast.fromConnectData("t", schema, value))
          .isEqualTo(pair.reference.fromConnectData("t", schema, value));
    }
    assertThat(pair.fast.config().names()).contains("schemas.enable", "decimal.format");
  }

  private static String timestampRecord() {
    return "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"type\":\"int64\",\"optional\":false,"
        + "\"name\":\""
        + Timestamp.LOGICAL_NAME
        + "\",\"version\":1,\"field\":\"ts\"},"
        + "{\"type\":\"map\",\"keys\":{\"type\":\"int32\"},\"values\":{\"type\":\"string\"},"
        + "\"optional\":true,\"field\":\"m\"}],\"optional\":false},"
        + "\"payload\":{\"ts\":1767225600000,\"m\":[[1,\"a\"],[2,\"b\"]]}}";
  }

  private static String deepArray(int depth) {
    return "[".repeat(depth) + "]".repeat(depth);
  }

  private static String deepArraySchema(int depth) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < depth; i++) {
      sb.append("{\"type\":\"array\",\"items\":");
    }
    sb.append("{\"type\":\"int32\"}");
    sb.append("}".repeat(depth));
    return sb.toString();
  }

  /** Drops, nulls, retypes or adds a field of some object in the payload, or none. */
  private static void edit(JsonNode node, Random random) {
    if (node instanceof ObjectNode object && object.size() > 0) {
      List<String> names = new ArrayList<>();
      object.fieldNames().forEachRemaining(names::add);
      String name = names.get(random.nextInt(names.size()));
      switch (random.nextInt(6)) {
        case 0 -> object.remove(name);
        case 1 -> object.putNull(name);
        case 2 -> object.put(name, "text");
        case 3 -> object.put("unknown", random.nextInt());
        case 4 -> object.put(name, 1.25);
        default -> edit(object.get(name), random);
      }
    } else if (node instanceof ArrayNode array && array.size() > 0) {
      edit(array.get(random.nextInt(array.size())), random);
    }
  }

  /** The same tree with the fields of every object in a random order. */
  private static JsonNode shuffled(JsonNode node, Random random) {
    if (node instanceof ObjectNode object) {
      List<String> names = new ArrayList<>();
      object.fieldNames().forEachRemaining(names::add);
      Collections.shuffle(names, random);
      ObjectNode copy = JsonNodeFactory.instance.objectNode();
      for (String name : names) {
        copy.set(name, shuffled(object.get(name), random));
      }
      return copy;
    }
    if (node instanceof ArrayNode array) {
      ArrayNode copy = JsonNodeFactory.instance.arrayNode();
      array.forEach(element -> copy.add(shuffled(element, random)));
      return copy;
    }
    return node;
  }
}
