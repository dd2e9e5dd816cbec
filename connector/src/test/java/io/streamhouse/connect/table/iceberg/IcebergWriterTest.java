package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableNotFoundException;
import io.streamhouse.connect.table.TableWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * What a route's Iceberg writer makes of its settings and records: the file format and target file
 * size come from the route, a missing table without auto-create is a clear error, and bad values
 * name their field.
 */
class IcebergWriterTest extends AppendTableFixture {
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"parquet", "orc", "avro"})
  void otherFileFormatsAndTheTargetFileSizeComeFromTheRoute(String fileFormat) throws Exception {
    Map<String, String> props = new HashMap<>(config.originalsStrings());
    props.put("route.orders.file-format", fileFormat);
    props.put("route.orders.target-file-size-bytes", "2048");
    props.put("route.orders.partition-by", "");
    config = new StreamhouseSinkConfig(props);
    try (IcebergFormat format = format()) {
      PreparedFiles files = write(format, 0, 3000, new FileBudget(8, 64L << 20));
      if (!fileFormat.equals("avro")) { // Iceberg's Avro writer sees its size only per 64 KB block
        assertThat(files.files()).as("files rolled at the target size").isGreaterThan(1);
      }
      format.commit(table, 1L, List.of(batch("b", 0, 3000, files)), true);
      Table t = format.table(table);
      assertThat(t.properties())
          .containsEntry("write.format.default", fileFormat)
          .containsEntry("write.metadata.delete-after-commit.enabled", "true")
          .containsEntry("write.metadata.previous-versions-max", "100");
      assertThat(org.apache.iceberg.SnapshotChanges.builderFor(t).build().addedDataFiles())
          .allSatisfy(f -> assertThat(f.format().name()).isEqualToIgnoringCase(fileFormat));
      assertThat(ids(format)).hasSize(3000).doesNotHaveDuplicates();
    }
  }

  @Test
  void badValuesNameTheirField() throws Exception {
    try (IcebergFormat format = format()) {
      TableWriter writer =
          format
              .openWriter(table, config.routes().get(0), record(0, 0), new FileBudget(8, 64L << 20))
              .orElseThrow();
      Map<String, Object> wrong =
          new HashMap<>(Map.of("id", "not-a-number", "customer", "x", "created_at", 0L));
      SinkRecord schemaless = new SinkRecord("orders", 0, null, null, null, wrong, 1);
      assertThatThrownBy(() -> writer.write(schemaless))
          .isInstanceOf(RecordConversionException.class)
          .hasMessageContaining("column 'id'")
          .extracting(e -> ((RecordConversionException) e).field())
          .isEqualTo("id");
      Map<String, Object> missing = Map.of("customer", "x", "created_at", 0L);
      assertThatThrownBy(
              () -> writer.write(new SinkRecord("orders", 0, null, null, null, missing, 2)))
          .hasMessage("required column 'id' is missing or null");
      writer.abort();
    }
  }

  @Test
  void aMissingTableWithoutAutoCreateIsAClearError() {
    Map<String, String> props = new HashMap<>(config.originalsStrings());
    props.put("route.orders.auto-create", "false");
    StreamhouseSinkConfig noCreate = new StreamhouseSinkConfig(props);
    try (IcebergFormat format = new IcebergFormat(noCreate.catalog("local"), "test-sink", 0)) {
      assertThatThrownBy(
              () ->
                  format.openWriter(
                      table, noCreate.routes().get(0), record(0, 0), new FileBudget(8, 64L << 20)))
          .isInstanceOf(TableNotFoundException.class)
          .hasMessage(
              "Table default.orders does not exist in catalog local and route orders has auto-create "
                  + "off (set route.orders.auto-create=true or create the table)");
    }
  }
}
