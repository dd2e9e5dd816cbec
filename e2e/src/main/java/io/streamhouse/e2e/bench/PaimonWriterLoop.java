package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.SampleCustomers;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

/**
 * The ceiling of the Paimon benchmark: the same changes as the sink's topic (the same {@link
 * SampleCustomers} keys and deletes, the same {@link BenchRecords} values), already in memory as
 * Paimon rows, written by one plain Paimon writer (compacting as Paimon does by default) into a
 * table with the sink's table options, committed {@code commits} times. No Kafka, no JSON, no
 * Connect. Prints one line: {@code RESULT seconds=...} (the write and commit time, after the rows
 * are built).
 *
 * <pre>java -Xmx2g -cp ... PaimonWriterLoop warehouse changes keys seed commits</pre>
 */
public final class PaimonWriterLoop {
  private PaimonWriterLoop() {}

  public static void main(String[] args) throws Exception {
    Path warehouse = Path.of(args[0]);
    int changes = Integer.parseInt(args[1]);
    int keys = Integer.parseInt(args[2]);
    long seed = Long.parseLong(args[3]);
    int commits = Integer.parseInt(args[4]);
    SampleCustomers source = new SampleCustomers(seed, keys, 0.2);
    BenchRecords values = new BenchRecords(seed);
    GenericRow[] rows = new GenericRow[changes];
    for (int i = 0; i < changes; i++) {
      SampleCustomers.Change c = source.next();
      rows[i] =
          c.isDelete()
              ? GenericRow.ofKind(
                  RowKind.DELETE, c.id(), null, null, null, null, null, null, null, null, null)
              : row(values.nextPayload(c.id(), PaimonBenchmark.TABLE));
    }
    Options options = new Options();
    options.set("warehouse", warehouse.toString());
    try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
      Identifier id = Identifier.create("bench", "loop");
      catalog.createDatabase("bench", true);
      catalog.createTable(
          id,
          // The table the sink creates from BenchRecords' schema (its schema file, compared):
          // top-level
          // columns and array elements nullable, the key and the struct's required fields NOT NULL.
          Schema.newBuilder()
              .column("id", DataTypes.BIGINT().notNull())
              .column("table", DataTypes.STRING())
              .column(
                  "customer",
                  DataTypes.ROW(
                      DataTypes.FIELD(0, "name", DataTypes.STRING().notNull()),
                      DataTypes.FIELD(1, "city", DataTypes.STRING().notNull())))
              .column("tags", DataTypes.ARRAY(DataTypes.STRING()))
              .column("note", DataTypes.STRING())
              .column("amount", DataTypes.DOUBLE())
              .column("quantity", DataTypes.INT())
              .column("discount_pct", DataTypes.INT())
              .column("status", DataTypes.STRING())
              .column("created_at", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3))
              .primaryKey("id")
              .options(
                  Map.of(
                      "bucket",
                      "4",
                      "disable-explicit-type-casting",
                      "true",
                      "commit.discard-duplicate-files",
                      "true",
                      "snapshot.time-retained",
                      "24 h"))
              .build(),
          false);
      FileStoreTable table = (FileStoreTable) catalog.getTable(id);
      StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser("loop");
      long start = System.nanoTime();
      try (StreamTableWrite write = builder.newWrite();
          StreamTableCommit commit = builder.newCommit()) {
        int perCommit = Math.max(1, changes / commits);
        long identifier = 0;
        for (int i = 0; i < changes; i++) {
          write.write(rows[i]);
          if ((i + 1) % perCommit == 0 || i == changes - 1) {
            identifier++;
            commit.commit(identifier, write.prepareCommit(false, identifier));
          }
        }
      }
      System.out.printf("RESULT seconds=%.3f%n", (System.nanoTime() - start) / 1e9);
    }
  }

  /** A {@link BenchRecords} payload as a Paimon row of the table above. */
  @SuppressWarnings("unchecked")
  private static GenericRow row(Map<String, Object> p) {
    Map<String, Object> customer = (Map<String, Object>) p.get("customer");
    List<String> tags = (List<String>) p.get("tags");
    return GenericRow.ofKind(
        RowKind.INSERT,
        p.get("id"),
        string(p.get("table")),
        GenericRow.of(string(customer.get("name")), string(customer.get("city"))),
        new GenericArray(tags.stream().map(BinaryString::fromString).toArray()),
        string(p.get("note")),
        p.get("amount"),
        p.get("quantity"),
        p.get("discount_pct"),
        string(p.get("status")),
        Timestamp.fromEpochMillis((Long) p.get("created_at")));
  }

  private static BinaryString string(Object v) {
    return v == null ? null : BinaryString.fromString(v.toString());
  }
}
