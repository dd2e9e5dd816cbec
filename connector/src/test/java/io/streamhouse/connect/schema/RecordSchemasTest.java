package io.streamhouse.connect.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.decode.InputMode;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class RecordSchemasTest {
  private static SinkRecord record(Struct value) {
    return new SinkRecord("t", 0, null, null, value.schema(), value, 0);
  }

  @Test
  void anEnvelopeWhoseImageIsNoStructIsNoRow() {
    Schema truncate =
        SchemaBuilder.struct()
            .field("op", Schema.STRING_SCHEMA)
            .field("after", Schema.OPTIONAL_STRING_SCHEMA)
            .build();
    Struct value = new Struct(truncate).put("op", "t");
    assertThat(RecordSchemas.rowOf(record(value), InputMode.DEBEZIUM)).isEmpty();

    Struct withText = new Struct(truncate).put("op", "c").put("after", "not a row");
    assertThat(RecordSchemas.rowOf(record(withText), InputMode.DEBEZIUM)).isEmpty();
  }

  @Test
  void anEnvelopeImageIsTheRow() {
    Schema envelope =
        SchemaBuilder.struct()
            .field("op", Schema.STRING_SCHEMA)
            .field(
                "after", SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).optional().build())
            .build();
    Struct value =
        new Struct(envelope)
            .put("op", "c")
            .put("after", new Struct(envelope.field("after").schema()).put("id", 1L));
    assertThat(RecordSchemas.rowOf(record(value), InputMode.DEBEZIUM))
        .get()
        .satisfies(
            r -> assertThat(r.fields()).extracting(FieldType.Field::name).containsExactly("id"));
  }
}
