package io.streamhouse.connect.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.schema.RecordSchemas;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class KafkaMetadataTest {
  private static final KafkaMetadata ALL =
      KafkaMetadata.of(
          "_kafka", List.of("topic", "partition", "offset", "timestamp", "key", "headers"));

  private static SinkRecord record(Object key, ConnectHeaders headers, Long timestamp) {
    return new SinkRecord(
        "orders",
        2,
        null,
        key,
        null,
        Map.of("id", 1L),
        41L,
        timestamp,
        timestamp == null ? TimestampType.NO_TIMESTAMP_TYPE : TimestampType.CREATE_TIME,
        headers);
  }

  @Test
  void theValuesComeFromTheOriginalRecordNotFromATransformOrTheClock() {
    SinkRecord original = record("k-1", new ConnectHeaders(), 1_700_000_000_123L);
    // A transform renamed the topic and changed partition and offset: the originals are written.
    SinkRecord renamed =
        original.newRecord(
            "renamed",
            7,
            null,
            original.key(),
            null,
            original.value(),
            original.timestamp(),
            original.headers());
    Map<String, Object> values = ALL.valuesOf(renamed);
    assertThat(values)
        .containsEntry("topic", "orders")
        .containsEntry("partition", 2)
        .containsEntry("offset", 41L)
        .containsEntry("timestamp", 1_700_000_000_123L)
        .containsEntry("key", "k-1")
        .containsEntry("headers", Map.of());
    assertThat(ALL.valuesOf(renamed)).as("a replay writes the same values").isEqualTo(values);
    assertThat(ALL.valuesOf(record(null, new ConnectHeaders(), null)))
        .containsEntry("timestamp", null)
        .containsEntry("key", null);
  }

  @Test
  void onlyTheChosenFieldsAreWritten() {
    KafkaMetadata some = KafkaMetadata.of("meta", List.of("OFFSET", " key"));
    assertThat(some.valuesOf(record("k", new ConnectHeaders(), 5L)))
        .containsOnlyKeys("offset", "key");
    assertThat(RecordSchemas.metadataType(some).toString())
        .isEqualTo("struct<offset:int64,key:string>");
    assertThat(RecordSchemas.metadataType(ALL).toString())
        .isEqualTo(
            "struct<topic:string,partition:int32,offset:int64,timestamp:timestamp,key:string,"
                + "headers:map<string,string>>");
    assertThat(KafkaMetadata.NONE.enabled()).isFalse();
  }

  @Test
  void keysBecomeStableText() {
    Schema keySchema =
        SchemaBuilder.struct()
            .field("id", Schema.INT64_SCHEMA)
            .field("region", Schema.OPTIONAL_STRING_SCHEMA)
            .field("raw", Schema.OPTIONAL_BYTES_SCHEMA)
            .build();
    Struct struct =
        new Struct(keySchema).put("id", 7L).put("raw", new byte[] {1, 2}).put("region", "eu");
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("b", List.of(1, 2.5, true));
    map.put("a", null);
    byte[] bytes = "k\u00e9y".getBytes(StandardCharsets.UTF_8);
    assertThat(MetadataText.of("plain", 100)).isEqualTo("plain");
    assertThat(MetadataText.of(bytes, 100)).isEqualTo(Base64.getEncoder().encodeToString(bytes));
    assertThat(MetadataText.of(ByteBuffer.wrap(bytes), 100))
        .isEqualTo(Base64.getEncoder().encodeToString(bytes));
    assertThat(MetadataText.of(struct, 100))
        .isEqualTo("{\"id\":7,\"region\":\"eu\",\"raw\":\"AQI=\"}");
    assertThat(MetadataText.of(map, 100)).isEqualTo("{\"b\":[1,2.5,true],\"a\":null}");
    assertThat(MetadataText.of(42, 100)).isEqualTo("42");
    assertThat(MetadataText.of(new BigDecimal("1E+3"), 100)).isEqualTo("1000");
    assertThat(MetadataText.of(new java.util.Date(0), 100)).isEqualTo("1970-01-01T00:00:00Z");
  }

  @Test
  void textPastItsBoundIsNullNeverTruncated() {
    assertThat(MetadataText.of("x".repeat(10), 10)).hasSize(10);
    assertThat(MetadataText.of("x".repeat(11), 10)).isNull();
    assertThat(MetadataText.of(new byte[7], 12)).hasSize(12);
    assertThat(MetadataText.of(new byte[10], 12)).isNull();
    assertThat(MetadataText.of(Map.of("k", "x".repeat(100_000)), 100)).isNull();
    SinkRecord huge = record("k".repeat(MetadataText.MAX_KEY_CHARS + 1), new ConnectHeaders(), 1L);
    assertThat(ALL.valuesOf(huge)).containsEntry("key", null).containsEntry("offset", 41L);
  }

  @Test
  void headersAreAMapOfNameToTheLastValueAsTextAndBounded() {
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString("trace", "first");
    headers.addInt("attempt", 3);
    headers.addBytes("raw", new byte[] {(byte) 0xff});
    headers.addString("trace", "second");
    headers.add("empty", null, null);
    headers.addString("n".repeat(KafkaMetadata.MAX_HEADER_NAME_CHARS + 1), "dropped");
    headers.addString("big", "v".repeat(MetadataText.MAX_HEADER_CHARS + 1));
    for (int i = 0; i < KafkaMetadata.MAX_HEADERS; i++) {
      headers.addString("h" + i, "v" + i);
    }
    @SuppressWarnings("unchecked")
    Map<String, String> written =
        (Map<String, String>) ALL.valuesOf(record("k", headers, 1L)).get("headers");
    assertThat(written)
        .containsEntry("trace", "second")
        .containsEntry("attempt", "3")
        .containsEntry("raw", "/w==")
        .containsEntry("empty", null)
        .containsEntry("big", null)
        .doesNotContainKey("n".repeat(KafkaMetadata.MAX_HEADER_NAME_CHARS + 1))
        .containsKey("h0");
    // 64 headers read: 7 before the h-series (one name twice, one dropped), so h0..h56.
    assertThat(written).containsKey("h56").doesNotContainKey("h57").hasSize(5 + 57);
  }

  @Test
  void aRecordFieldNamedLikeTheColumnIsRefusedNamingRouteAndField() throws Exception {
    Schema schema =
        SchemaBuilder.struct()
            .field("id", Schema.INT64_SCHEMA)
            .field("_kafka", Schema.STRING_SCHEMA)
            .build();
    Struct clash = new Struct(schema).put("id", 1L).put("_kafka", "mine");
    SinkRecord record = new SinkRecord("orders", 0, null, null, schema, clash, 3L);
    assertThatThrownBy(() -> ALL.checkNoClash("r", clash))
        .isInstanceOf(RecordConversionException.class)
        .hasMessageContaining("field '_kafka'")
        .hasMessageContaining("route r")
        .hasMessageContaining("route.r.kafka-metadata.column");
    assertThatThrownBy(() -> ALL.checkNoClash("r", Map.of("_kafka", 1)))
        .isInstanceOf(RecordConversionException.class);
    assertThatThrownBy(() -> RecordSchemas.rowOf(record, InputMode.UPSERT, ALL, "r"))
        .isInstanceOf(RecordConversionException.class)
        .hasMessageContaining("field '_kafka'");
    assertThat(
            RecordSchemas.rowOf(
                    record, InputMode.UPSERT, KafkaMetadata.of("meta", List.of("key")), "r")
                .orElseThrow()
                .toString())
        .isEqualTo("struct<id:int64 not null,_kafka:string not null,meta:struct<key:string>>");
  }
}
