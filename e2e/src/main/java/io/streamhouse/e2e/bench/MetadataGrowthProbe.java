package io.streamhouse.e2e.bench;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;

/**
 * Development probe (not a published benchmark): what each snapshot an Iceberg table keeps costs
 * every later commit. It appends one small file per commit to a table of an in-memory catalog, each
 * snapshot with a summary as large as the connector's (commit id, watermarks of four partitions,
 * valid-through time), and at the given snapshot counts prints the size of the table's metadata
 * file and the CPU time of writing it as JSON and parsing it back, which a file-based catalog's
 * commit does once each (medians of 30 after 30 warm-up rounds, one thread). Arguments: the
 * snapshot counts, ascending (default 10 100 500 1440: a day of commits every minute).
 */
public final class MetadataGrowthProbe {
  private MetadataGrowthProbe() {}

  public static void main(String[] args) {
    int[] counts = args.length == 0 ? new int[] {10, 100, 500, 1440} : parse(args);
    try (InMemoryCatalog catalog = new InMemoryCatalog()) {
      catalog.initialize("probe", Map.of());
      catalog.createNamespace(org.apache.iceberg.catalog.Namespace.of("db"));
      Table table =
          catalog.createTable(
              TableIdentifier.of("db", "t"),
              new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
              PartitionSpec.unpartitioned(),
              Map.of(
                  "write.metadata.delete-after-commit.enabled", "true",
                  "write.metadata.previous-versions-max", "1"));
      int committed = 0;
      for (int count : counts) {
        while (committed < count) {
          committed++;
          append(table, committed);
        }
        print(((HasTableOperations) table).operations().current());
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void append(Table table, int n) {
    DataFile file =
        DataFiles.builder(PartitionSpec.unpartitioned())
            .withPath("/probe/data/f" + n + ".parquet")
            .withFileSizeInBytes(1_000_000)
            .withRecordCount(10_000)
            .withFormat(FileFormat.PARQUET)
            .build();
    AppendFiles append =
        table
            .newAppend()
            .appendFile(file)
            .set("streamhouse.probe.commit-id", Long.toString(1796288715459L + n))
            .set(
                "streamhouse.probe.watermarks",
                "events:0="
                    + 250710 * n
                    + ",events:1="
                    + 249881 * n
                    + ",events:2="
                    + 249130 * n
                    + ",events:3="
                    + 250279 * n)
            .set("streamhouse.probe.valid-through-ms", Long.toString(1796288381225L + n));
    append.commit();
  }

  private static void print(TableMetadata metadata) {
    String json = TableMetadataParser.toJson(metadata);
    for (int i = 0; i < 30; i++) {
      TableMetadataParser.toJson(TableMetadataParser.fromJson(json));
    }
    long[] write = new long[30];
    long[] read = new long[30];
    for (int i = 0; i < 30; i++) {
      long t0 = System.nanoTime();
      TableMetadata parsed = TableMetadataParser.fromJson(json);
      long t1 = System.nanoTime();
      TableMetadataParser.toJson(parsed);
      long t2 = System.nanoTime();
      read[i] = t1 - t0;
      write[i] = t2 - t1;
    }
    System.out.printf(
        "PROBE %d snapshots: metadata file %,d KB; write %.1f ms, parse %.1f ms per commit%n",
        metadata.snapshots().size(), json.length() / 1024, median(write), median(read));
  }

  private static double median(long[] nanos) {
    long[] sorted = nanos.clone();
    java.util.Arrays.sort(sorted);
    return sorted[sorted.length / 2] / (double) TimeUnit.MILLISECONDS.toNanos(1);
  }

  private static int[] parse(String[] args) {
    int[] counts = new int[args.length];
    for (int i = 0; i < args.length; i++) {
      counts[i] = Integer.parseInt(args[i]);
    }
    return counts;
  }
}
