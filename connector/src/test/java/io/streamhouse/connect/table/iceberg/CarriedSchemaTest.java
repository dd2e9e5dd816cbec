package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.protocol.Watermarks;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * A batch's schema on the control topic: it travels with the files of both codecs under versions an
 * older plugin refuses, and anything that is not an Iceberg schema is refused with the batch.
 */
class CarriedSchemaTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(
              2, "tags", Types.ListType.ofOptional(3, Types.StringType.get())));
  private static final Map<Integer, PartitionSpec> SPECS = Map.of(0, PartitionSpec.unpartitioned());

  @Test
  void dataFilesCarryTheSchemaUnderTheirOwnVersion() throws Exception {
    Optional<Schema> schema = Optional.of(SCHEMA);
    byte[] payload = DataFilesCodec.encode(List.of(), SPECS, schema);

    DataFilesCodec.Decoded decoded =
        DataFilesCodec.decodeWithSchema(DataFilesCodec.version(schema), payload, SPECS);

    assertThat(DataFilesCodec.version(schema)).isEqualTo(DataFilesCodec.VERSION_WITH_SCHEMA);
    assertThat(decoded.schema()).get().matches(SCHEMA::sameSchema);
    assertThat(decoded.files()).isEmpty();
    assertThat(
            DataFilesCodec.decodeWithSchema(
                    DataFilesCodec.VERSION,
                    DataFilesCodec.encode(List.of(), SPECS, Optional.empty()),
                    SPECS)
                .schema())
        .isEmpty();
  }

  @Test
  void keyedFilesCarryTheSchemaUnderTheirOwnVersion() throws Exception {
    KeyedFilesCodec.KeyedFiles files =
        new KeyedFilesCodec.KeyedFiles(
            List.of(),
            List.of(),
            List.of(),
            7L,
            -1L,
            Watermarks.EMPTY,
            Watermarks.EMPTY,
            UnseenKeys.NONE,
            Optional.of(SCHEMA));

    KeyedFilesCodec.KeyedFiles decoded =
        KeyedFilesCodec.decode(KeyedFilesCodec.encode(files, SPECS), SPECS);

    assertThat(KeyedFilesCodec.version(files)).isEqualTo(KeyedFilesCodec.VERSION_WITH_SCHEMA);
    assertThat(KeyedFilesCodec.isKeyed(KeyedFilesCodec.version(files))).isTrue();
    assertThat(decoded.schema()).get().matches(SCHEMA::sameSchema);
    assertThat(decoded.writer()).isEqualTo(7L);
  }

  @Test
  void whatIsNotASchemaIsRefused() {
    assertThatThrownBy(() -> decode("[]"))
        .isInstanceOf(DataFilesCodec.InvalidDataFilesException.class)
        .hasMessageContaining("not a JSON object");
    assertThatThrownBy(() -> decode("{\"files\":[]}"))
        .isInstanceOf(DataFilesCodec.InvalidDataFilesException.class)
        .hasMessageContaining("no schema");
    assertThatThrownBy(() -> decode("{\"schema\":\"struct\",\"files\":[]}"))
        .isInstanceOf(DataFilesCodec.InvalidDataFilesException.class)
        .hasMessageContaining("not a JSON object");
    assertThatThrownBy(
            () ->
                decode(
                    "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"id\":\"x\"}]},\"files\":[]}"))
        .isInstanceOf(DataFilesCodec.InvalidDataFilesException.class)
        .hasMessageContaining("not an Iceberg schema");
    assertThatThrownBy(() -> decode("{\"schema\":{\"type\":\"struct\",\"fields\":[]}}"))
        .isInstanceOf(DataFilesCodec.InvalidDataFilesException.class)
        .hasMessageContaining("not a JSON array of data files");
  }

  /**
   * Nesting as deep as a hostile writer likes is refused with the batch, never a stack overflow.
   */
  @Test
  void aSchemaNestedTooDeepIsRefused() {
    String open =
        "{\"id\":1,\"name\":\"n\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":[";
    String close = "]}}";
    String schema =
        "{\"type\":\"struct\",\"fields\":[" + open.repeat(5_000) + close.repeat(5_000) + "]}";
    assertThatThrownBy(() -> decode("{\"schema\":" + schema + ",\"files\":[]}"))
        .isInstanceOf(DataFilesCodec.InvalidDataFilesException.class);
  }

  private static DataFilesCodec.Decoded decode(String json) throws Exception {
    return DataFilesCodec.decodeWithSchema(
        DataFilesCodec.VERSION_WITH_SCHEMA, json.getBytes(StandardCharsets.UTF_8), SPECS);
  }
}
