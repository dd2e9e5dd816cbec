package io.streamhouse.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.e2e.IcebergTables;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HadoopTableProbeTest {
  @TempDir Path warehouse;

  @Test
  void readsTheCurrentSnapshotSummaryAsTheTableChanges() throws Exception {
    HadoopTableProbe probe = new HadoopTableProbe(warehouse.toUri().toString(), "bench.events");
    assertThat(probe.currentSummary()).as("no table yet").isEmpty();

    try (HadoopCatalog catalog =
        new HadoopCatalog(new Configuration(), warehouse.toUri().toString())) {
      Table table =
          catalog.createTable(
              TableIdentifier.of("bench", "events"),
              new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
      assertThat(probe.currentSummary()).as("a table without a snapshot").isEmpty();

      table
          .newAppend()
          .appendFile(file(table, 5))
          .set("streamhouse.c.watermarks", "bench:0=5")
          .commit();
      assertThat(probe.currentSummary()).containsEntry("total-records", "5");
      assertThat(IcebergTables.watermarksOf(probe.currentSummary(), "c"))
          .isEqualTo(Map.of("bench:0", 5L));

      table
          .newAppend()
          .appendFile(file(table, 7))
          .set("streamhouse.c.watermarks", "bench:0=5,bench:1=7")
          .commit();
      assertThat(probe.currentSummary()).containsEntry("total-records", "12");
      assertThat(IcebergTables.watermarksOf(probe.currentSummary(), "c"))
          .isEqualTo(Map.of("bench:0", 5L, "bench:1", 7L));
    }
  }

  private static DataFile file(Table table, long records) {
    return DataFiles.builder(PartitionSpec.unpartitioned())
        .withPath(table.location() + "/data/" + records + ".parquet")
        .withFileSizeInBytes(100)
        .withRecordCount(records)
        .build();
  }
}
