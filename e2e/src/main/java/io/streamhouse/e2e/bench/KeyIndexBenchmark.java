package io.streamhouse.e2e.bench;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.table.iceberg.IcebergFormat;
import io.streamhouse.connect.table.iceberg.KeyedTableCheck;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * What the key indexes of a large keyed Iceberg table cost: a table of {@code --keys} keys (written
 * straight with Iceberg's API, {@code --files} data files) on a local JDBC catalog, then {@code
 * --writers} task writers opened on it in this JVM, as the tasks of one worker would (each reads
 * its own index), each then committing a batch of {@code --changes} upserts of random keys. Prints
 * the index read time per writer, the heap retained after a full GC with every index open, the heap
 * pools' peak, the MiB per million keys, the commits' decisions and the table check. Run it with
 * the heap a worker has ({@code JAVA_OPTS=-Xmx2g}, the default of the script).
 */
public final class KeyIndexBenchmark {
  private static final TableId TABLE = new TableId("local", List.of("bench"), "keys");

  private KeyIndexBenchmark() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    long keys = Long.parseLong(options.getOrDefault("keys", "10000000"));
    int files = Integer.parseInt(options.getOrDefault("files", "20"));
    int writers = Integer.parseInt(options.getOrDefault("writers", "2"));
    int changes = Integer.parseInt(options.getOrDefault("changes", "200000"));
    Path dir = Files.createTempDirectory("key-index-bench");
    Map<String, String> props = new HashMap<>();
    props.put("name", "bench");
    props.put("kafka.bootstrap.servers", "localhost:9092");
    props.put("catalogs", "local");
    props.put("catalog.local.type", "jdbc");
    props.put("catalog.local.uri", "jdbc:sqlite:" + dir.resolve("catalog.db"));
    props.put("catalog.local.warehouse", dir.resolve("warehouse").toString());
    props.put("routes", "keys");
    props.put("route.keys.topics", "keys");
    props.put("route.keys.table", "bench.keys");
    props.put("route.keys.primary-key", "id");
    StreamhouseSinkConfig config = new StreamhouseSinkConfig(props);
    System.out.printf(
        "Key index: %d keys in %d data files, %d task writers in one JVM (max heap %d MiB),"
            + " %d upserts each%n",
        keys, files, writers, Runtime.getRuntime().maxMemory() >> 20, changes);
    List<IcebergFormat> formats = new ArrayList<>();
    try {
      for (int w = 0; w < writers; w++) {
        formats.add(new IcebergFormat(config.catalog("local"), "bench", w));
      }
      long start = System.nanoTime();
      write(formats.get(0), keys, files);
      System.out.printf("Wrote the table in %d ms%n", (System.nanoTime() - start) / 1_000_000);
      gc();
      long before = heapUsed();
      resetPeaks();
      org.apache.kafka.connect.data.Schema value =
          SchemaBuilder.struct()
              .field("id", org.apache.kafka.connect.data.Schema.INT64_SCHEMA)
              .field("name", org.apache.kafka.connect.data.Schema.OPTIONAL_STRING_SCHEMA)
              .build();
      List<TableWriter> open = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        long t = System.nanoTime();
        open.add(
            formats
                .get(w)
                .openWriter(
                    TABLE,
                    config.routes().get(0),
                    record(value, w, 0, 1),
                    new FileBudget(64, 256L << 20))
                .orElseThrow());
        System.out.printf(
            "Writer %d read its key index in %d ms%n", w, (System.nanoTime() - t) / 1_000_000);
      }
      gc();
      long retained = heapUsed() - before;
      System.out.printf(
          "Heap retained by %d indexes: %d MiB (%.1f MiB per million keys per index); heap pools'"
              + " peak while reading: %d MiB%n",
          writers,
          retained >> 20,
          retained / (double) writers / (keys / 1e6) / (1 << 20),
          peakHeap() >> 20);
      Random random = new Random(1);
      for (int w = 0; w < writers; w++) {
        TableWriter writer = open.get(w);
        for (int i = 0; i < changes; i++) {
          // Each writer its own keys, as each task its own partitions' keys.
          long id = (long) (random.nextDouble() * (keys / writers)) * writers + w;
          writer.write(record(value, w, i, id));
        }
        long t = System.nanoTime();
        PreparedFiles prepared = writer.prepare();
        String batch = "w" + w;
        BatchPlan.Decision decision =
            formats
                .get(w)
                .commit(
                    TABLE,
                    w + 1,
                    List.of(
                        new OfferedBatch(
                            batch,
                            w,
                            Map.of(new TopicPartition("keys", w), new OffsetRange(0, changes)),
                            prepared,
                            0)),
                    true)
                .decisions()
                .get(batch);
        System.out.printf(
            "Writer %d: %d upserts prepared and committed in %d ms: %s%n",
            w, changes, (System.nanoTime() - t) / 1_000_000, decision);
      }
      System.out.printf("Heap pools' peak over the whole run: %d MiB%n", peakHeap() >> 20);
      org.apache.iceberg.catalog.Catalog catalog = formats.get(0).catalog();
      System.out.println(
          KeyedTableCheck.check(catalog.loadTable(TableIdentifier.of("bench", "keys"))));
      for (TableWriter w : open) {
        w.close();
      }
    } finally {
      for (IcebergFormat f : formats) {
        f.close();
      }
    }
  }

  private static SinkRecord record(
      org.apache.kafka.connect.data.Schema value, int partition, long offset, long id) {
    Struct row = new Struct(value).put("id", id).put("name", "n" + offset);
    return new SinkRecord(
        "keys",
        partition,
        org.apache.kafka.connect.data.Schema.INT64_SCHEMA,
        id,
        value,
        row,
        offset);
  }

  /** A keyed table of ids {@code 0 .. keys-1}, in {@code files} data files, one commit. */
  private static void write(IcebergFormat format, long keys, int files) {
    Schema schema =
        new Schema(
            List.of(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "name", Types.StringType.get())),
            java.util.Set.of(1));
    org.apache.iceberg.catalog.Catalog catalog = format.catalog();
    ((org.apache.iceberg.catalog.SupportsNamespaces) catalog)
        .createNamespace(Namespace.of("bench"));
    Table table =
        catalog.createTable(
            TableIdentifier.of("bench", "keys"),
            schema,
            PartitionSpec.unpartitioned(),
            Map.of("format-version", "2"));
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .dataSchema(schema)
            .build();
    OutputFileFactory outputs =
        OutputFileFactory.builderFor(table, 0, 0).operationId(UUID.randomUUID().toString()).build();
    AppendFiles append = table.newAppend();
    long perFile = (keys + files - 1) / files;
    GenericRecord row = GenericRecord.create(schema);
    for (long first = 0; first < keys; first += perFile) {
      DataWriter<Record> writer =
          writers.newDataWriter(outputs.newOutputFile(), PartitionSpec.unpartitioned(), null);
      try (writer) {
        for (long id = first; id < Math.min(keys, first + perFile); id++) {
          row.setField("id", id);
          row.setField("name", "k" + id);
          writer.write(row);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      DataFile file = writer.toDataFile();
      append.appendFile(file);
    }
    append.commit();
  }

  private static void gc() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
  }

  private static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static void resetPeaks() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  /** The sum of the heap pools' peaks: an upper bound of what the heap held at once. */
  private static long peakHeap() {
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    return peak;
  }
}
