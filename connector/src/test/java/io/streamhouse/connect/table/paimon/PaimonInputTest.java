package io.streamhouse.connect.table.paimon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.junit.jupiter.api.Test;

/**
 * What Paimon writers make of their input: Debezium envelopes, a string key for a BIGINT primary
 * key, records without a key (an append table, in a JDBC catalog), a tombstone for a table that
 * does not exist yet, and bad input, which names its field.
 */
class PaimonInputTest extends ItemsTableFixture {
  /** The most common key format: {@code StringConverter}, key "28638", for a BIGINT primary key. */
  @Test
  void aTombstoneWithAStringKeyDeletesTheRowOfTheBigintKeyItSpells() throws Exception {
    StreamhouseSinkConfig config =
        config(Map.of("route.items.input", "upsert", "route.items.primary-key", "id"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      SinkRecord stringKeyed =
          new SinkRecord(
              "items",
              0,
              Schema.STRING_SCHEMA,
              "28638",
              ROW,
              new Struct(ROW).put("id", 28638L).put("name", "x"),
              0);
      SinkRecord tombstone =
          new SinkRecord("items", 0, Schema.STRING_SCHEMA, "28638", null, null, 2);
      OfferedBatch batch =
          batch(format, route, List.of(stringKeyed, upsert(0, 1, 7, "y", null), tombstone));
      format.commit(table, 1000, List.of(batch), true);
      assertThat(rows(format.table(table))).containsExactlyEntriesOf(Map.of(7L, "y"));

      TableWriter writer =
          format.openWriter(table, route, tombstone, new FileBudget(8, 64L << 20)).orElseThrow();
      SinkRecord notANumber =
          new SinkRecord("items", 0, Schema.STRING_SCHEMA, "28638x", null, null, 3);
      assertThatThrownBy(() -> writer.write(notANumber))
          .isInstanceOf(RecordConversionException.class)
          .hasMessageContaining(
              "a String value (28638x) does not fit column 'id' of type BIGINT NOT NULL");
      writer.close();
    }
  }

  @Test
  void recordsWithoutAKeyGoToAnAppendTableInAJdbcCatalog() throws Exception {
    StreamhouseSinkConfig config =
        config(
            Map.of(
                "catalog.lake.type",
                "jdbc",
                "catalog.lake.uri",
                "jdbc:sqlite:" + dir.resolve("paimon-catalog.db"),
                "catalog.lake.catalog-key",
                "test"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      List<SinkRecord> records = new ArrayList<>();
      for (long i = 0; i < 10; i++) {
        records.add(
            new SinkRecord(
                "items",
                0,
                null,
                null,
                ROW,
                new Struct(ROW).put("id", i % 3).put("name", "n" + i),
                i));
      }
      format.commit(table, 1000, List.of(batch(format, route, records)), true);
      FileStoreTable t = format.table(table);
      assertThat(t.primaryKeys()).isEmpty();
      assertThat(t.options()).doesNotContainKey("file.format.per.level");
      ReadBuilder read = t.newReadBuilder();
      List<String> names = new ArrayList<>();
      try (RecordReader<InternalRow> reader =
          read.newRead().createReader(read.newScan().plan().splits())) {
        reader.forEachRemaining(row -> names.add(row.getString(1).toString()));
      }
      assertThat(names)
          .containsExactlyInAnyOrder("n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9");
      TableWriter writer =
          format
              .openWriter(table, route, records.get(0), new FileBudget(4, 64L << 20))
              .orElseThrow();
      assertThatThrownBy(() -> writer.write(new SinkRecord("items", 0, null, null, null, null, 10)))
          .isInstanceOf(RecordConversionException.class)
          .hasMessageContaining("append table");
      writer.close();
    }
  }

  @Test
  void debeziumEnvelopesMirrorTheSource() throws Exception {
    StreamhouseSinkConfig config = config(Map.of("route.items.input", "debezium"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      OfferedBatch batch =
          batch(
              format,
              route,
              List.of(
                  cdc(0, "r", null, 1L, "one"),
                  cdc(1, "c", null, 2L, "two"),
                  cdc(2, "u", 1L, 1L, "uno"),
                  cdc(3, "d", 2L, null, null),
                  cdc(4, "c", null, 3L, "three")));
      format.commit(table, 1000, List.of(batch), true);
      assertThat(rows(format.table(table))).isEqualTo(Map.of(1L, "uno", 3L, "three"));
    }
  }

  @Test
  void aTombstoneForATableThatDoesNotExistYetCreatesNothing() throws Exception {
    StreamhouseSinkConfig config = config(Map.of());
    try (PaimonFormat format = format(config)) {
      assertThat(
              format.openWriter(
                  table, config.routes().get(0), tombstone(0, 0, 1), new FileBudget(4, 64L << 20)))
          .isEmpty();
      assertThat(format.watermarks(table).asMap()).isEmpty();
      assertThatThrownBy(() -> format.table(table)).hasMessageContaining("does not exist");
    }
  }

  @Test
  void badInputNamesTheField() throws Exception {
    StreamhouseSinkConfig config = config(Map.of("route.items.input", "debezium"));
    try (PaimonFormat format = format(config)) {
      TableWriter writer =
          format
              .openWriter(
                  table,
                  config.routes().get(0),
                  cdc(0, "c", null, 1L, "x"),
                  new FileBudget(4, 64L << 20))
              .orElseThrow();
      assertThatThrownBy(() -> writer.write(cdc(1, "x", null, 1L, "x")))
          .isInstanceOf(RecordConversionException.class)
          .hasMessageContaining("unknown Debezium op 'x'")
          .extracting(e -> ((RecordConversionException) e).field())
          .isEqualTo("op");
      Map<String, Object> nullKey = new HashMap<>();
      nullKey.put("id", null);
      nullKey.put("name", "n");
      SinkRecord missingKey =
          new SinkRecord("items", 0, null, null, null, Map.of("op", "c", "after", nullKey), 2);
      assertThatThrownBy(() -> writer.write(missingKey))
          .isInstanceOf(RecordConversionException.class)
          .hasMessageContaining("primary key field 'id'");
      SinkRecord keylessTombstone = new SinkRecord("items", 0, null, null, null, null, 3);
      assertThatThrownBy(() -> writer.write(keylessTombstone))
          .isInstanceOf(RecordConversionException.class)
          .hasMessageContaining("without a Kafka key");
      writer.close();
    }
  }
}
