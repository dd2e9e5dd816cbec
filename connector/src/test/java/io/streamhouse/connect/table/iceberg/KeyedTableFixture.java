package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.testing.LocalCatalogConfigs;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * A keyed Iceberg table {@code default.orders} of {@code (id, name, score)}, key {@code id},
 * partitioned by {@code bucket(4,id)}, on a local catalog; its records, writers and one-batch
 * commits.
 */
final class KeyedTableFixture {
  static final Schema VALUE =
      SchemaBuilder.struct()
          .field("id", Schema.INT64_SCHEMA)
          .field("name", Schema.STRING_SCHEMA)
          .field("score", Schema.OPTIONAL_INT32_SCHEMA)
          .build();
  static final TableId TABLE = new TableId("local", List.of("default"), "orders");

  private KeyedTableFixture() {}

  static StreamhouseSinkConfig config(Path dir, int formatVersion) {
    return config(dir, formatVersion, Map.of());
  }

  /** {@link #config(Path, int)} with {@code more} route settings. */
  static StreamhouseSinkConfig config(Path dir, int formatVersion, Map<String, String> more) {
    Map<String, String> props = LocalCatalogConfigs.icebergOrders(dir);
    props.putAll(more);
    props.put("route.orders.partition-by", "bucket(4,id)");
    props.put("route.orders.primary-key", "id");
    props.put("route.orders.format-version", Integer.toString(formatVersion));
    return new StreamhouseSinkConfig(props);
  }

  static SinkRecord upsert(int partition, long offset, long id, String name) {
    Struct value = new Struct(VALUE).put("id", id).put("name", name).put("score", (int) offset);
    return new SinkRecord("orders", partition, Schema.INT64_SCHEMA, id, VALUE, value, offset);
  }

  static SinkRecord tombstone(int partition, long offset, long id) {
    return new SinkRecord("orders", partition, Schema.INT64_SCHEMA, id, VALUE, null, offset);
  }

  /** A new writer of the table, its key index read now. */
  static TableWriter writer(IcebergFormat format, StreamhouseSinkConfig config) throws Exception {
    return format
        .openWriter(
            TABLE, config.routes().get(0), upsert(0, 0, 1, "x"), new FileBudget(8, 64L << 20))
        .orElseThrow();
  }

  /** The live rows, id to name; fails on a second live row of a key. */
  static Map<Long, String> rows(Table table) throws Exception {
    table.refresh();
    Map<Long, String> rows = new TreeMap<>();
    try (CloseableIterable<Record> read = IcebergGenerics.read(table).build()) {
      for (Record r : read) {
        String previous = rows.put((Long) r.getField("id"), (String) r.getField("name"));
        assertThat(previous).as("a second live row of key %s", r.getField("id")).isNull();
      }
    }
    return rows;
  }

  /** Offers one batch of {@code tp}'s offsets {@code [from, to)} in a commit; its decision. */
  static BatchPlan.Decision commitOne(
      IcebergFormat format,
      long commitId,
      TopicPartition tp,
      long from,
      long to,
      PreparedFiles files) {
    String batch = "b" + commitId;
    return format
        .commit(
            TABLE,
            commitId,
            List.of(new OfferedBatch(batch, 0, Map.of(tp, new OffsetRange(from, to)), files, 0)),
            true)
        .decisions()
        .get(batch);
  }

  /**
   * Runs a maintenance pass that compacts every data file with deletes, and checks it left a
   * compaction with a rewrite map as the current snapshot.
   */
  static void compact(IcebergFormat format) {
    maintain(format);
    assertThat(format.table(TABLE).currentSnapshot().summary())
        .as("a compaction with a rewrite map")
        .containsKey(format.keys().rewriteMap());
  }

  /** Runs a maintenance pass that compacts every data file with deletes, if there is any. */
  static void maintain(IcebergFormat format) {
    format.maintain(
        TABLE,
        new io.streamhouse.connect.config.MaintenanceSettings(
            true, 60_000, 60_000, 0, 1, true, 1, 1L << 30, 16L << 20, 0, 0.0, 0, 0),
        System.nanoTime() + 300_000_000_000L,
        io.streamhouse.connect.table.MaintenanceCheckpoints.NONE);
  }
}
