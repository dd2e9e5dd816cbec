package io.streamhouse.connect.errors;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** The dead-letter table's row of a bad record: its coordinates, data, target and error. */
class DeadLetterRowsTest {
  private static final Schema ORDER =
      SchemaBuilder.struct()
          .field("id", Schema.STRING_SCHEMA)
          .field("n", Schema.INT32_SCHEMA)
          .build();

  private final DeadLetterRows rows = new DeadLetterRows("conn", 1, () -> 1_767_225_600_000L);

  @Test
  void aRowKeepsTheOriginalCoordinatesTheDataAsJsonAndTheError() {
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString("trace", "abc");
    headers.addBytes("raw", new byte[] {1, 2});
    SinkRecord transformed =
        new SinkRecord(
            "renamed",
            3,
            Schema.STRING_SCHEMA,
            "k-1",
            ORDER,
            new Struct(ORDER).put("id", "x-1").put("n", 7),
            12,
            1_000L,
            TimestampType.CREATE_TIME,
            headers,
            "orders",
            2,
            42L);
    SinkRecord row =
        rows.row(
            transformed,
            "orders",
            "local:sales.orders",
            DeadLetterStage.SCHEMA,
            new SchemaChangeRejectedException("id", "field 'id' is string but column is int64"));

    assertThat(row.originalTopic()).isEqualTo("orders");
    assertThat(row.originalKafkaPartition()).isEqualTo(2);
    assertThat(row.originalKafkaOffset()).as("the table's watermarks cover it").isEqualTo(42L);
    Struct v = (Struct) row.value();
    assertThat(v.getString("topic")).isEqualTo("orders");
    assertThat(v.getInt32("partition")).isEqualTo(2);
    assertThat(v.getInt64("offset")).isEqualTo(42L);
    assertThat(v.get("timestamp")).isEqualTo(new java.util.Date(1_000L));
    assertThat(v.getString("key")).as("a string as it is").isEqualTo("k-1");
    assertThat(v.getString("value")).isEqualTo("{\"id\":\"x-1\",\"n\":7}");
    assertThat(v.getString("headers"))
        .isEqualTo("[{\"key\":\"trace\",\"value\":\"abc\"},{\"key\":\"raw\",\"value\":\"AQI=\"}]");
    assertThat(v.getBoolean("truncated")).isFalse();
    assertThat(v.getString("connector")).isEqualTo("conn");
    assertThat(v.getInt32("task")).isEqualTo(1);
    assertThat(v.getString("route")).isEqualTo("orders");
    assertThat(v.getString("target_table")).isEqualTo("local:sales.orders");
    assertThat(v.getString("stage")).isEqualTo("schema");
    assertThat(v.getString("error_field")).isEqualTo("id");
    assertThat(v.getString("error_class")).isEqualTo(SchemaChangeRejectedException.class.getName());
    assertThat(v.getString("error_message")).contains("is string but column is int64");
    assertThat(v.get("failed_at")).isEqualTo(new java.util.Date(1_767_225_600_000L));
    v.validate();
  }

  @Test
  void aHugeValueIsCutAtItsBoundWithoutBeingCopiedWhole() {
    byte[] big = new byte[10 * 1024 * 1024];
    SinkRecord bad =
        new SinkRecord("t", 0, null, null, null, Map.of("blob", big, "list", List.of(1, 2)), 5);
    Struct v =
        (Struct)
            rows.row(
                    bad,
                    null,
                    null,
                    DeadLetterStage.ROUTE,
                    new RecordConversionException("<topic>", "no route takes topic t"))
                .value();
    assertThat(v.getString("value")).hasSize(DeadLetterRows.MAX_VALUE_CHARS);
    assertThat(v.getBoolean("truncated")).isTrue();
    assertThat(v.getString("route")).isNull();
    assertThat(v.getString("target_table")).isNull();
    assertThat(v.getString("stage")).isEqualTo("route");
    assertThat(v.getString("key")).isNull();
  }

  @Test
  void aRejectedSchemaChangeIsStageSchemaAnyOtherWriteFailureStageValue() {
    assertThat(DeadLetterStage.ofWrite(new SchemaChangeRejectedException("id", "narrowing")))
        .isEqualTo(DeadLetterStage.SCHEMA);
    assertThat(DeadLetterStage.ofWrite(new RecordConversionException("id", "does not fit")))
        .isEqualTo(DeadLetterStage.VALUE);
    assertThat(DeadLetterStage.VALUE.columnValue()).isEqualTo("value");
  }

  @Test
  void aMissingTableIsStageTable() {
    assertThat(
            DeadLetterStage.ofWrite(new TableUnavailableException("Table t does not exist", null)))
        .isEqualTo(DeadLetterStage.TABLE);
    assertThat(DeadLetterStage.TABLE.columnValue()).isEqualTo("table");
  }
}
