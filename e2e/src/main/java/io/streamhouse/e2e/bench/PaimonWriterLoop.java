package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.SampleCustomers;
import java.nio.file.Path;
import java.util.Map;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

/**
 * The ceiling of the Paimon benchmark: the same changes as the sink's topic, already in memory as
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
    GenericRow[] rows = new GenericRow[changes];
    for (int i = 0; i < changes; i++) {
      SampleCustomers.Change c = source.next();
      Map<String, Object> r = c.isDelete() ? Map.of("id", c.id()) : c.after();
      rows[i] =
          GenericRow.ofKind(
              c.isDelete() ? RowKind.DELETE : RowKind.INSERT,
              c.id(),
              string(r.get("name")),
              string(r.get("tier")),
              r.get("balance"),
              r.get("version"));
    }
    Options options = new Options();
    options.set("warehouse", warehouse.toString());
    try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(options))) {
      Identifier id = Identifier.create("bench", "loop");
      catalog.createDatabase("bench", true);
      catalog.createTable(
          id,
          Schema.newBuilder()
              .column("id", DataTypes.BIGINT().notNull())
              .column("name", DataTypes.STRING())
              .column("tier", DataTypes.STRING())
              .column("balance", DataTypes.DOUBLE())
              .column("version", DataTypes.BIGINT())
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

  private static BinaryString string(Object v) {
    return v == null ? null : BinaryString.fromString(v.toString());
  }
}
