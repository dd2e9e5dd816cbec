package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.errors.RecordConversionException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.junit.jupiter.api.Test;

/**
 * Every Connect type, logical types and nesting, into an Iceberg record; and the schema made from
 * it.
 */
class IcebergRecordConverterTest {
  private static final org.apache.kafka.connect.data.Schema ADDRESS =
      SchemaBuilder.struct()
          .name("Address")
          .field("city", org.apache.kafka.connect.data.Schema.STRING_SCHEMA)
          .field("zip", org.apache.kafka.connect.data.Schema.OPTIONAL_INT32_SCHEMA)
          .build();
  private static final org.apache.kafka.connect.data.Schema ALL =
      SchemaBuilder.struct()
          .name("All")
          .field("i8", org.apache.kafka.connect.data.Schema.INT8_SCHEMA)
          .field("i16", org.apache.kafka.connect.data.Schema.INT16_SCHEMA)
          .field("i32", org.apache.kafka.connect.data.Schema.INT32_SCHEMA)
          .field("i64", org.apache.kafka.connect.data.Schema.INT64_SCHEMA)
          .field("f32", org.apache.kafka.connect.data.Schema.FLOAT32_SCHEMA)
          .field("f64", org.apache.kafka.connect.data.Schema.FLOAT64_SCHEMA)
          .field("flag", org.apache.kafka.connect.data.Schema.BOOLEAN_SCHEMA)
          .field("name", org.apache.kafka.connect.data.Schema.OPTIONAL_STRING_SCHEMA)
          .field("raw", org.apache.kafka.connect.data.Schema.BYTES_SCHEMA)
          .field("price", Decimal.schema(2))
          .field("day", Date.SCHEMA)
          .field("at", Time.SCHEMA)
          .field("ts", Timestamp.SCHEMA)
          .field("address", ADDRESS)
          .field(
              "tags",
              SchemaBuilder.array(org.apache.kafka.connect.data.Schema.STRING_SCHEMA).build())
          .field(
              "scores",
              SchemaBuilder.map(
                      org.apache.kafka.connect.data.Schema.STRING_SCHEMA,
                      org.apache.kafka.connect.data.Schema.INT64_SCHEMA)
                  .optional()
                  .build())
          .build();

  @Test
  void theTableSchemaFollowsTheConnectSchema() {
    Schema schema = IcebergColumns.schemaFor(io.streamhouse.connect.schema.RecordSchemas.of(ALL));
    assertThat(schema.findType("i8")).isEqualTo(Types.IntegerType.get());
    assertThat(schema.findType("i64")).isEqualTo(Types.LongType.get());
    assertThat(schema.findType("f32")).isEqualTo(Types.FloatType.get());
    assertThat(schema.findType("price")).isEqualTo(Types.DecimalType.of(38, 2));
    assertThat(schema.findType("day")).isEqualTo(Types.DateType.get());
    assertThat(schema.findType("at")).isEqualTo(Types.TimeType.get());
    assertThat(schema.findType("ts")).isEqualTo(Types.TimestampType.withZone());
    assertThat(schema.findType("raw")).isEqualTo(Types.BinaryType.get());
    assertThat(schema.findField("address.zip").isOptional()).isTrue();
    assertThat(schema.findField("address.city").isRequired()).isTrue();
    assertThat(schema.findType("tags").isListType()).isTrue();
    assertThat(schema.findField("scores").isOptional()).isTrue();
    assertThat(schema.findField("name").isOptional()).isTrue();
    assertThat(schema.findField("i32").isRequired()).isTrue();
  }

  @Test
  void everyConnectTypeConverts() throws Exception {
    Struct value =
        new Struct(ALL)
            .put("i8", (byte) 1)
            .put("i16", (short) 2)
            .put("i32", 3)
            .put("i64", 4L)
            .put("f32", 1.5f)
            .put("f64", 2.25)
            .put("flag", true)
            .put("name", "n")
            .put("raw", new byte[] {1, 2})
            .put("price", new BigDecimal("12.34"))
            .put("day", new java.util.Date(86_400_000L * 3))
            .put("at", new java.util.Date(3_600_000L))
            .put("ts", new java.util.Date(1_767_225_600_123L))
            .put("address", new Struct(ADDRESS).put("city", "Oslo"))
            .put("tags", List.of("a", "b"))
            .put("scores", Map.of("x", 7L));
    Record r =
        new IcebergRecordConverter(
                IcebergColumns.schemaFor(io.streamhouse.connect.schema.RecordSchemas.of(ALL)))
            .convert(value);
    assertThat(r.getField("i8")).isEqualTo(1);
    assertThat(r.getField("i16")).isEqualTo(2);
    assertThat(r.getField("i64")).isEqualTo(4L);
    assertThat(r.getField("f32")).isEqualTo(1.5f);
    assertThat(r.getField("raw")).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2}));
    assertThat(r.getField("price")).isEqualTo(new BigDecimal("12.34"));
    assertThat(r.getField("day")).isEqualTo(LocalDate.of(1970, 1, 4));
    assertThat(r.getField("at")).isEqualTo(LocalTime.of(1, 0));
    assertThat(r.getField("ts"))
        .isEqualTo(OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 123_000_000, ZoneOffset.UTC));
    assertThat(((Record) r.getField("address")).getField("city")).isEqualTo("Oslo");
    assertThat(((Record) r.getField("address")).getField("zip")).isNull();
    assertThat(r.getField("tags")).isEqualTo(List.of("a", "b"));
    assertThat(r.getField("scores")).isEqualTo(Map.of("x", 7L));
  }

  @Test
  void schemalessJsonIsInferredAndConverted() throws Exception {
    Map<String, Object> json =
        Map.of(
            "id",
            5,
            "price",
            9.5,
            "ok",
            true,
            "who",
            Map.of("name", "z"),
            "list",
            List.of(1, 2),
            "nothing",
            "");
    Schema schema =
        IcebergColumns.schemaFor(io.streamhouse.connect.schema.RecordSchemas.infer(json));
    assertThat(schema.findType("id")).isEqualTo(Types.LongType.get());
    assertThat(schema.findType("price")).isEqualTo(Types.DoubleType.get());
    assertThat(schema.findType("who.name")).isEqualTo(Types.StringType.get());
    Record r = new IcebergRecordConverter(schema).convert(json);
    assertThat(r.getField("id")).isEqualTo(5L);
    assertThat(r.getField("list")).isEqualTo(List.of(1L, 2L));
  }

  @Test
  void timestampsWithAndWithoutZoneTakeEpochMillisDatesAndStrings() throws Exception {
    Schema schema =
        new Schema(
            Types.NestedField.optional(1, "tz", Types.TimestampType.withZone()),
            Types.NestedField.optional(2, "local", Types.TimestampType.withoutZone()));
    IcebergRecordConverter converter = new IcebergRecordConverter(schema);
    OffsetDateTime expected = OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 123_000_000, ZoneOffset.UTC);
    for (Object value :
        List.of(
            1_767_225_600_123L,
            new java.util.Date(1_767_225_600_123L),
            "2026-01-01T01:00:00.123+01:00",
            "2026-01-01 00:00:00.123")) {
      Record r = converter.convert(Map.of("tz", value, "local", value));
      assertThat(r.getField("tz")).as("%s", value).isEqualTo(expected);
      assertThat(r.getField("local")).as("%s", value).isEqualTo(expected.toLocalDateTime());
    }
    assertThat(converter.convert(Map.of("tz", -1L)).getField("tz"))
        .isEqualTo(OffsetDateTime.of(1969, 12, 31, 23, 59, 59, 999_000_000, ZoneOffset.UTC));
  }

  @Test
  void lossyOrMismatchedValuesAreRejectedWithTheirPath() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "n", Types.IntegerType.get()),
            Types.NestedField.optional(2, "d", Types.DecimalType.of(5, 2)),
            Types.NestedField.optional(
                3,
                "s",
                Types.StructType.of(Types.NestedField.required(4, "inner", Types.LongType.get()))));
    IcebergRecordConverter converter = new IcebergRecordConverter(schema);
    assertThatThrownBy(() -> converter.convert(Map.of("n", 3_000_000_000L)))
        .isInstanceOf(RecordConversionException.class)
        .hasMessageContaining("column 'n'");
    assertThatThrownBy(() -> converter.convert(Map.of("n", 1, "d", new BigDecimal("1.234"))))
        .hasMessageContaining("column 'd'");
    assertThatThrownBy(() -> converter.convert(Map.of("n", 1, "d", new BigDecimal("12345.5"))))
        .hasMessageContaining("needs precision 7");
    assertThatThrownBy(() -> converter.convert(Map.of("n", 1, "s", Map.of("inner", "x"))))
        .isInstanceOf(RecordConversionException.class)
        .satisfies(e -> assertThat(((RecordConversionException) e).field()).isEqualTo("s.inner"));
    assertThatThrownBy(() -> converter.convert(Map.of("n", 1, "s", Map.of())))
        .hasMessage("required column 's.inner' is missing or null");
    assertThatThrownBy(() -> converter.convert(List.of(1)))
        .hasMessageContaining("expected a struct or a JSON object");
  }

  /**
   * Two Connect schemas of one table in turns, their fields in different orders: each record's
   * values land in their columns whether the layout is the one seen last or another kept.
   */
  @Test
  void schemasInTurnsKeepTheirLayouts() throws Exception {
    org.apache.kafka.connect.data.Schema ab =
        SchemaBuilder.struct()
            .field("a", org.apache.kafka.connect.data.Schema.INT64_SCHEMA)
            .field("b", org.apache.kafka.connect.data.Schema.OPTIONAL_STRING_SCHEMA)
            .build();
    org.apache.kafka.connect.data.Schema ba =
        SchemaBuilder.struct()
            .field("b", org.apache.kafka.connect.data.Schema.OPTIONAL_STRING_SCHEMA)
            .field("a", org.apache.kafka.connect.data.Schema.INT64_SCHEMA)
            .field("c", org.apache.kafka.connect.data.Schema.OPTIONAL_INT32_SCHEMA)
            .build();
    IcebergRecordConverter converter =
        new IcebergRecordConverter(
            IcebergColumns.schemaFor(io.streamhouse.connect.schema.RecordSchemas.of(ab)));
    for (int i = 0; i < 1_000; i++) {
      Struct value =
          i % 3 == 0
              ? new Struct(ba).put("b", "x" + i).put("a", (long) i).put("c", i)
              : new Struct(ab).put("a", (long) i).put("b", "x" + i);
      Record r = converter.convert(value);
      assertThat(r.getField("a")).as("record %d", i).isEqualTo((long) i);
      assertThat(r.getField("b")).as("record %d", i).isEqualTo("x" + i);
    }
  }
}
