package io.streamhouse.connect.table.paimon;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.schema.RecordSchemas;
import io.streamhouse.connect.testing.LocalCatalogConfigs;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka metadata columns in Paimon primary-key tables: an existing table gains the column through
 * schema evolution as a value column (the key stays as it was); an upsert's row carries the
 * metadata of the record that wrote it last.
 */
class PaimonKafkaMetadataTest {
  private static final long T0 = 1_767_225_600_000L;

  @TempDir Path dir;
  private final TableId table = new TableId("lake", List.of("db"), "items");

  private StreamhouseSinkConfig config(Map<String, String> extra) {
    return new StreamhouseSinkConfig(LocalCatalogConfigs.paimonItems(dir, extra));
  }

  private PaimonFormat format(StreamhouseSinkConfig config) {
    return new PaimonFormat(
        config.catalog("lake"), config.connectorName(), 32L << 20, dir.resolve("spill"));
  }

  private static SinkRecord upsert(long offset, long id, String name, ConnectHeaders headers) {
    SinkRecord plain = ItemsTableFixture.upsert(0, offset, id, name, null);
    return new SinkRecord(
        "items",
        0,
        plain.keySchema(),
        plain.key(),
        plain.valueSchema(),
        plain.value(),
        offset,
        T0 + offset,
        TimestampType.CREATE_TIME,
        headers);
  }

  @Test
  void anExistingTableGainsTheColumnAsAValueColumnAndRowsCarryTheirLastRecordsMetadata()
      throws Exception {
    StreamhouseSinkConfig plain = config(Map.of());
    Map<String, String> extra = new HashMap<>();
    extra.put("route.items.kafka-metadata", "topic,partition,offset,timestamp,key,headers");
    StreamhouseSinkConfig meta = config(extra);
    try (PaimonFormat format = format(plain)) {
      RouteSettings before = plain.routes().get(0);
      format.commit(
          table,
          1,
          List.of(
              ItemsTableFixture.batch(
                  format,
                  table,
                  before,
                  List.of(
                      upsert(0, 1, "a", new ConnectHeaders()),
                      upsert(1, 2, "b", new ConnectHeaders())))),
          true);

      RouteSettings route = meta.routes().get(0);
      ConnectHeaders headers = new ConnectHeaders();
      headers.addString("trace", "t-2");
      SinkRecord update = upsert(2, 2, "b2", headers);
      format.evolve(
          table,
          RecordSchemas.rowOf(update, route.input(), route.kafkaMetadata(), route.name())
              .orElseThrow(),
          route.schemaEvolution());
      assertThat(
              format
                  .commit(
                      table,
                      2,
                      List.of(ItemsTableFixture.batch(format, table, route, List.of(update))),
                      true)
                  .decisions()
                  .values())
          .containsOnly(BatchPlan.Decision.APPLY);

      FileStoreTable t = format.table(table);
      assertThat(t.primaryKeys()).containsExactly("id");
      assertThat(t.rowType().getField("_kafka").type().toString())
          .isEqualTo(
              "ROW<`topic` STRING, `partition` INT, `offset` BIGINT, "
                  + "`timestamp` TIMESTAMP(3) WITH LOCAL TIME ZONE, `key` STRING, "
                  + "`headers` MAP<STRING NOT NULL, STRING>>");
      Map<Long, String> metadata = metadataById(t);
      assertThat(metadata)
          .containsExactly(
              Map.entry(1L, "null"),
              Map.entry(2L, "items/0/2/" + (T0 + 2) + "/{\"id\":2}/{trace=t-2}"));
    }
  }

  /** Per id, the metadata column as topic/partition/offset/timestamp/key/headers. */
  private static Map<Long, String> metadataById(FileStoreTable table) throws Exception {
    int position = table.rowType().getFieldIndex("_kafka");
    ReadBuilder read = table.newReadBuilder();
    Map<Long, String> rows = new TreeMap<>();
    try (RecordReader<InternalRow> reader =
        read.newRead().createReader(read.newScan().plan().splits())) {
      reader.forEachRemaining(
          row -> {
            if (row.isNullAt(position)) {
              rows.put(row.getLong(0), "null");
              return;
            }
            InternalRow m = row.getRow(position, 6);
            InternalMap headers = m.getMap(5);
            Map<String, String> h = new TreeMap<>();
            for (int i = 0; i < headers.size(); i++) {
              h.put(
                  headers.keyArray().getString(i).toString(),
                  headers.valueArray().getString(i).toString());
            }
            rows.put(
                row.getLong(0),
                m.getString(0)
                    + "/"
                    + m.getInt(1)
                    + "/"
                    + m.getLong(2)
                    + "/"
                    + m.getTimestamp(3, 3).getMillisecond()
                    + "/"
                    + m.getString(4)
                    + "/"
                    + h);
          });
    }
    return rows;
  }
}
