package io.streamhouse.e2e.bench;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The read cost of the position deletes a keyed Iceberg table accumulates: the time to read the
 * whole table after a drain with Iceberg's generic reader ({@code IcebergGenerics.read}, every row
 * counted), next to the same rows in a fully compacted copy (every live row written once into a
 * fresh table with the same schema, spec and properties: data files of the target size, no
 * deletes). The reads take turns, table and copy, and each time is the median of its reads.
 */
final class IcebergReadCost {
  private IcebergReadCost() {}

  /**
   * Reads the table of {@code drain} and its compacted copy {@code reads} times each; {@code
   * liveKeys} the rows the table must hold.
   */
  static Map<String, String> measure(
      UpsertDrains.Drain drain, String label, int reads, int liveKeys) throws IOException {
    Map<String, String> props =
        Map.of(CatalogUtil.ICEBERG_CATALOG_TYPE, "hadoop", "warehouse", drain.warehouse());
    Catalog catalog = CatalogUtil.buildIcebergCatalog("bench", props, new Configuration());
    try {
      Table keyed = catalog.loadTable(TableIdentifier.parse(UpsertDrains.TABLE));
      long copyStart = System.nanoTime();
      Table compacted = compactedCopy(catalog, keyed);
      double copySeconds = (System.nanoTime() - copyStart) / 1e9;
      long[] keyedMs = new long[reads];
      long[] compactedMs = new long[reads];
      long keyedRows = 0;
      long compactedRows = 0;
      for (int i = 0; i < reads; i++) {
        long start = System.nanoTime();
        keyedRows = countRows(keyed);
        keyedMs[i] = (System.nanoTime() - start) / 1_000_000;
        start = System.nanoTime();
        compactedRows = countRows(compacted);
        compactedMs[i] = (System.nanoTime() - start) / 1_000_000;
      }
      long keyedMedian = median(keyedMs);
      long compactedMedian = median(compactedMs);
      Map<String, String> summary = keyed.currentSnapshot().summary();
      Map<String, String> row = new LinkedHashMap<>();
      row.put("table", label);
      row.put("tasks", Integer.toString(drain.tasks()));
      row.put("snapshots", Integer.toString(size(keyed.snapshots())));
      row.put("data files", summary.getOrDefault("total-data-files", "0"));
      row.put("delete files", summary.getOrDefault("total-delete-files", "0"));
      row.put(
          "rows in data files / deleted",
          String.format(
              "%,d / %,d",
              Long.parseLong(summary.getOrDefault("total-records", "0")),
              Long.parseLong(summary.getOrDefault("total-position-deletes", "0"))));
      row.put(
          "rows read",
          keyedRows == liveKeys
              ? String.format("%,d", keyedRows)
              : String.format("%,d (expected %,d)", keyedRows, liveKeys));
      row.put("read ms (median of " + reads + ")", String.format("%,d", keyedMedian));
      row.put(
          "compacted copy: data files",
          compacted.currentSnapshot().summary().getOrDefault("total-data-files", "0")
              + (compactedRows == keyedRows ? "" : " (" + compactedRows + " rows)"));
      row.put("compacted read ms (median of " + reads + ")", String.format("%,d", compactedMedian));
      row.put(
          "read time ratio (goal <= 2)",
          String.format("%.2f", (double) keyedMedian / Math.max(1, compactedMedian)));
      System.out.printf(
          "Read %s (%d tasks): %s ms, compacted copy (written in %.1f s): %s ms%n",
          label,
          drain.tasks(),
          Arrays.toString(keyedMs),
          copySeconds,
          Arrays.toString(compactedMs));
      return row;
    } finally {
      if (catalog instanceof AutoCloseable c) {
        try {
          c.close();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    }
  }

  /**
   * A fresh table {@code <table>_compacted} with the keyed table's schema, spec and properties,
   * holding its live rows (read with the deletes applied) in data files rolled at the target size,
   * committed as one append.
   */
  private static Table compactedCopy(Catalog catalog, Table keyed) throws IOException {
    Map<String, String> properties = new HashMap<>(keyed.properties());
    properties.put(TableProperties.FORMAT_VERSION, "2");
    Table copy =
        catalog.createTable(
            TableIdentifier.parse(UpsertDrains.TABLE + "_compacted"),
            keyed.schema(),
            keyed.spec(),
            properties);
    Schema schema = copy.schema();
    PartitionSpec spec = copy.spec();
    FileFormat format =
        FileFormat.fromString(
            copy.properties()
                .getOrDefault(
                    TableProperties.DEFAULT_FILE_FORMAT,
                    TableProperties.DEFAULT_FILE_FORMAT_DEFAULT)
                .toUpperCase(Locale.ROOT));
    GenericFileWriterFactory writerFactory =
        new GenericFileWriterFactory.Builder(copy)
            .dataFileFormat(format)
            .dataSchema(schema)
            .build();
    OutputFileFactory fileFactory = OutputFileFactory.builderFor(copy, 0, 0).format(format).build();
    long targetFileSize =
        PropertyUtil.propertyAsLong(
            copy.properties(),
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    List<String> columns = schema.columns().stream().map(Types.NestedField::name).toList();
    PartitionKey partitionKey = new PartitionKey(spec, schema);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
    Map<PartitionKey, RollingDataWriter<Record>> writers = new HashMap<>();
    // The reader adds _pos to its records when it applies position deletes: copy the columns.
    try (CloseableIterable<Record> rows = IcebergGenerics.read(keyed).build()) {
      for (Record r : rows) {
        GenericRecord row = GenericRecord.create(schema);
        for (String c : columns) {
          row.setField(c, r.getField(c));
        }
        PartitionKey key = null;
        if (spec.isPartitioned()) {
          partitionKey.partition(wrapper.wrap(row));
          key = partitionKey;
        }
        RollingDataWriter<Record> writer = writers.get(key);
        if (writer == null) {
          PartitionKey own = key == null ? null : key.copy();
          writer =
              new RollingDataWriter<>(
                  writerFactory, fileFactory, copy.io(), targetFileSize, spec, own);
          writers.put(own, writer);
        }
        writer.write(row);
      }
    }
    AppendFiles append = copy.newAppend();
    for (RollingDataWriter<Record> writer : writers.values()) {
      writer.close();
      writer.result().dataFiles().forEach(append::appendFile);
    }
    append.commit();
    return copy;
  }

  private static long countRows(Table table) throws IOException {
    long rows = 0;
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record ignored : records) {
        rows++;
      }
    }
    return rows;
  }

  private static long median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static int size(Iterable<?> items) {
    int n = 0;
    for (Object ignored : items) {
      n++;
    }
    return n;
  }
}
