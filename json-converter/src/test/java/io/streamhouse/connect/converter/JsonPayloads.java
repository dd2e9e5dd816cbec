package io.streamhouse.connect.converter;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;

/** Orders as JSON with schemas, read back by FastJsonConverter: the tests of its decoded rows. */
public final class JsonPayloads {
  public static final Schema CUSTOMER =
      SchemaBuilder.struct()
          .name("Customer")
          .field("name", Schema.STRING_SCHEMA)
          .field("city", Schema.OPTIONAL_STRING_SCHEMA)
          .build();
  public static final Schema ORDER =
      SchemaBuilder.struct()
          .name("Order")
          .field("id", Schema.INT64_SCHEMA)
          .field("qty", Schema.OPTIONAL_INT32_SCHEMA)
          .field("amount", Schema.FLOAT64_SCHEMA)
          .field("ok", Schema.BOOLEAN_SCHEMA)
          .field("price", Decimal.schema(2))
          .field("day", Date.SCHEMA)
          .field("at", Timestamp.SCHEMA)
          .field("customer", CUSTOMER)
          .field("lines", SchemaBuilder.array(CUSTOMER).optional().build())
          .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
          .field(
              "scores",
              SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).optional().build())
          .field("note", Schema.OPTIONAL_STRING_SCHEMA)
          .field("status", SchemaBuilder.string().optional().defaultValue("new").build())
          .build();

  private JsonPayloads() {}

  /** An order with every field set but {@code status} (JsonConverter writes its default). */
  public static Struct order(String name, String note) {
    return new Struct(ORDER)
        .put("id", 1L)
        .put("qty", 3)
        .put("amount", 12.5)
        .put("ok", true)
        .put("price", new BigDecimal("9.99"))
        .put("day", new java.util.Date(86_400_000L * 20_000))
        .put("at", new java.util.Date(1_767_225_600_123L))
        .put("customer", new Struct(CUSTOMER).put("name", name).put("city", "Oslo"))
        .put(
            "lines",
            List.of(new Struct(CUSTOMER).put("name", "l1"), new Struct(CUSTOMER).put("name", "l2")))
        .put("tags", List.of("a", "\u00fc"))
        .put("scores", Map.of("k", "v"))
        .put("note", note);
  }

  /** An order with nulls wherever they may be. */
  public static Struct sparse() {
    return new Struct(ORDER)
        .put("id", 2L)
        .put("amount", 0.0)
        .put("ok", false)
        .put("price", new BigDecimal("0.00"))
        .put("day", new java.util.Date(0))
        .put("at", new java.util.Date(0))
        .put("customer", new Struct(CUSTOMER).put("name", ""))
        .put("tags", List.of());
  }

  /**
   * {@code value} written by JsonConverter and read by FastJsonConverter twice: the second reading
   * (the first goes to JsonConverter, which gives the schema to cache), a struct not made yet.
   */
  public static Struct secondReading(Struct value) {
    JsonConverter writer = new JsonConverter();
    writer.configure(Map.of("schemas.enable", "true"), false);
    byte[] bytes = writer.fromConnectData("t", value.schema(), value);
    FastJsonConverter fast = new FastJsonConverter();
    fast.configure(Map.of("schemas.enable", "true"), false);
    fast.toConnectData("t", bytes);
    return (JsonStruct) fast.toConnectData("t", bytes).value();
  }

  /**
   * Whether {@code value}, a {@link #secondReading}, still holds its decoded row: nothing read it
   * through the {@code Struct} API.
   */
  public static boolean unmade(Struct value) {
    return ((JsonStruct) value).undecodedRow() != null;
  }
}
