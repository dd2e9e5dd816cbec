package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.testing.LocalCatalogConfigs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Iceberg append table {@code default.orders} of {@link #ORDER} rows, partitioned by {@code
 * day(created_at)} and {@code bucket(4,id)}, in a JDBC catalog (a SQLite file) and a local
 * warehouse, fresh for each test: the records, writes, batches and reader that the Iceberg format's
 * append-table tests share by extending it. Keyed tables have {@link KeyedTableFixture}.
 */
abstract class AppendTableFixture {
  static final Schema ORDER =
      SchemaBuilder.struct()
          .name("Order")
          .field("id", Schema.INT64_SCHEMA)
          .field("customer", Schema.STRING_SCHEMA)
          .field("amount", Schema.OPTIONAL_FLOAT64_SCHEMA)
          .field("created_at", Timestamp.SCHEMA)
          .build();

  static final TopicPartition TP0 = new TopicPartition("orders", 0);

  @TempDir Path dir;

  StreamhouseSinkConfig config;

  TableId table;

  @BeforeEach
  void setUp() {
    Map<String, String> props = LocalCatalogConfigs.icebergOrders(dir);
    config = new StreamhouseSinkConfig(props);
    table = new TableId("local", List.of("default"), "orders");
  }

  IcebergFormat format() {
    return new IcebergFormat(config.catalog("local"), config.connectorName(), 0);
  }

  static SinkRecord record(long offset, long id) {
    return record(offset, id, "c" + (id % 3));
  }

  static SinkRecord record(long offset, long id, String customer) {
    Struct value =
        new Struct(ORDER)
            .put("id", id)
            .put("customer", customer)
            .put("amount", id * 1.5)
            .put("created_at", new java.util.Date(1_767_225_600_000L + id * 3_600_000L));
    return new SinkRecord("orders", 0, Schema.STRING_SCHEMA, "k" + id, ORDER, value, offset);
  }

  PreparedFiles write(IcebergFormat format, long from, long to, FileBudget budget)
      throws Exception {
    TableWriter writer =
        format.openWriter(table, config.routes().get(0), record(from, from), budget).orElseThrow();
    for (long o = from; o < to; o++) {
      writer.write(record(o, o));
    }
    return writer.prepare();
  }

  static OfferedBatch batch(String id, long from, long to, PreparedFiles files) {
    return new OfferedBatch(id, 0, Map.of(TP0, new OffsetRange(from, to)), files, 0L);
  }

  List<Long> ids(IcebergFormat format) throws Exception {
    Table t = format.table(table);
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(t).build()) {
      rows.forEach(r -> ids.add((Long) r.getField("id")));
    }
    ids.sort(Long::compare);
    return ids;
  }

  /** {@code rounds} commits of 10 records each: offsets and ids 0-9, 10-19, ... */
  void commitRounds(IcebergFormat format, int rounds) throws Exception {
    for (int round = 0; round < rounds; round++) {
      commitBatch(format, "b" + round, round + 1L, round * 10L, round * 10L + 10);
    }
  }

  /** Writes records {@code from} to {@code to} and offers them as one batch in a full round. */
  CommitOutcome commitBatch(IcebergFormat format, String batchId, long commitId, long from, long to)
      throws Exception {
    PreparedFiles files = write(format, from, to, new FileBudget(64, 64L << 20));
    return format.commit(table, commitId, List.of(batch(batchId, from, to, files)), true);
  }
}
