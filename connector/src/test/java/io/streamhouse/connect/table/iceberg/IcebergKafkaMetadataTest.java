package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.schema.RecordSchemas;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.testing.LocalCatalogConfigs;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka metadata columns in Iceberg tables: an existing table gains the column through schema
 * evolution, rows written after carry their record's metadata, rows written before have none.
 */
class IcebergKafkaMetadataTest {
  private static final TopicPartition TP0 = new TopicPartition("orders", 0);
  private static final long T0 = 1_767_225_600_000L;

  @TempDir Path dir;
  private final TableId table = new TableId("local", List.of("default"), "orders");

  private StreamhouseSinkConfig config(String... extra) {
    Map<String, String> props = LocalCatalogConfigs.icebergOrders(dir);
    props.put("route.orders.partition-by", "");
    for (int i = 0; i < extra.length; i += 2) {
      props.put(extra[i], extra[i + 1]);
    }
    return new StreamhouseSinkConfig(props);
  }

  private static SinkRecord record(long offset, Object key, ConnectHeaders headers) {
    SinkRecord plain = AppendTableFixture.record(offset, offset);
    return new SinkRecord(
        "orders",
        0,
        null,
        key,
        plain.valueSchema(),
        plain.value(),
        offset,
        T0 + offset,
        TimestampType.CREATE_TIME,
        headers);
  }

  private static PreparedFiles write(
      IcebergFormat format, TableId table, RouteSettings route, List<SinkRecord> records)
      throws Exception {
    TableWriter writer =
        format.openWriter(table, route, records.get(0), new FileBudget(8, 64L << 20)).orElseThrow();
    for (SinkRecord r : records) {
      writer.write(r);
    }
    PreparedFiles files = writer.prepare();
    writer.close();
    return files;
  }

  @Test
  void anExistingTableGainsTheColumnAndNewRowsCarryTheirRecordsMetadata() throws Exception {
    StreamhouseSinkConfig plain = config();
    StreamhouseSinkConfig meta =
        config(
            "route.orders.kafka-metadata",
            "topic,partition,offset,timestamp,key,headers",
            "route.orders.schema-evolution",
            "add-columns");
    try (IcebergFormat format =
        new IcebergFormat(plain.catalog("local"), plain.connectorName(), 0)) {
      PreparedFiles before =
          write(
              format, table, plain.routes().get(0), List.of(record(0, "k0", new ConnectHeaders())));
      format.commit(
          table,
          1,
          List.of(new OfferedBatch("b0", 0, Map.of(TP0, new OffsetRange(0, 1)), before, 0)),
          true);

      RouteSettings route = meta.routes().get(0);
      ConnectHeaders headers = new ConnectHeaders();
      headers.addString("trace", "t-1");
      headers.addInt("attempt", 2);
      SinkRecord first = record(1, "k1", headers);
      format.evolve(
          table,
          RecordSchemas.rowOf(first, route.input(), route.kafkaMetadata(), route.name())
              .orElseThrow(),
          route.schemaEvolution());
      Schema keySchema = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build();
      PreparedFiles after =
          write(
              format,
              table,
              route,
              List.of(first, record(2, new Struct(keySchema).put("id", 2L), new ConnectHeaders())));
      assertThat(
              format
                  .commit(
                      table,
                      2,
                      List.of(
                          new OfferedBatch("b1", 0, Map.of(TP0, new OffsetRange(1, 3)), after, 0)),
                      true)
                  .decisions())
          .containsEntry("b1", BatchPlan.Decision.APPLY);

      assertThat(format.table(table).schema().findField("_kafka").type().toString())
          .isEqualTo(
              "struct<6: topic: optional string, 7: partition: optional int, 8: offset: optional long, "
                  + "9: timestamp: optional timestamptz, 10: key: optional string, "
                  + "11: headers: optional map<string, string>>");
      Map<Long, Record> byId = new TreeMap<>();
      try (CloseableIterable<Record> rows = IcebergGenerics.read(format.table(table)).build()) {
        rows.forEach(r -> byId.put((Long) r.getField("id"), r.copy()));
      }
      assertThat(byId).containsOnlyKeys(0L, 1L, 2L);
      assertThat(byId.get(0L).getField("_kafka")).isNull();
      Record m1 = (Record) byId.get(1L).getField("_kafka");
      assertThat(m1.getField("topic")).isEqualTo("orders");
      assertThat(m1.getField("partition")).isEqualTo(0);
      assertThat(m1.getField("offset")).isEqualTo(1L);
      assertThat(((OffsetDateTime) m1.getField("timestamp")).toInstant())
          .isEqualTo(Instant.ofEpochMilli(T0 + 1));
      assertThat(m1.getField("key")).isEqualTo("k1");
      assertThat(m1.getField("headers")).isEqualTo(Map.of("trace", "t-1", "attempt", "2"));
      Record m2 = (Record) byId.get(2L).getField("_kafka");
      assertThat(m2.getField("offset")).isEqualTo(2L);
      assertThat(m2.getField("key")).isEqualTo("{\"id\":2}");
      assertThat(m2.getField("headers")).isEqualTo(Map.of());
    }
  }

  @Test
  void aCreatedTableHasTheColumnAndARecordFieldOfItsNameIsRefused() throws Exception {
    StreamhouseSinkConfig meta =
        config(
            "route.orders.kafka-metadata",
            "offset",
            "route.orders.kafka-metadata.column",
            "amount");
    try (IcebergFormat format = new IcebergFormat(meta.catalog("local"), meta.connectorName(), 0)) {
      assertThatThrownBy(
              () ->
                  format.openWriter(
                      table,
                      meta.routes().get(0),
                      record(0, "k", new ConnectHeaders()),
                      new FileBudget(8, 64L << 20)))
          .isInstanceOf(RecordConversionException.class)
          .hasMessageContaining("the record has a field 'amount'")
          .hasMessageContaining("route orders");
    }
  }
}
