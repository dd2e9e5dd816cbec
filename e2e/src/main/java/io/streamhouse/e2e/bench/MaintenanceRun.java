package io.streamhouse.e2e.bench;

import io.streamhouse.connect.config.MaintenanceSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.MaintenanceReport;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.MaintenanceCheckpoints;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.table.iceberg.IcebergFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * One table of {@link MaintenanceBenchmark}, committed to by one coordinator format from two task
 * formats' files, with or without a maintenance pass every few commits, and measured: commit
 * latency and metadata size at checkpoints, scan times.
 */
final class MaintenanceRun implements AutoCloseable {
  private static final Schema EVENT =
      SchemaBuilder.struct()
          .name("bench.Event")
          .field("id", Schema.INT64_SCHEMA)
          .field("customer", Schema.STRING_SCHEMA)
          .field("amount", Schema.OPTIONAL_FLOAT64_SCHEMA)
          .field("created_at", Timestamp.SCHEMA)
          .build();
  private static final String TOPIC = "events";

  /** The tasks whose files each commit round holds, one file each. */
  static final int TASKS = 2;

  private static final int WINDOW = 100; // commits whose latency a checkpoint reports

  private final Path tableDir;
  private final boolean maintained;
  private final MaintenanceOptions options;
  private final StreamhouseSinkConfig config;
  private final TableId table = new TableId("local", List.of("bench"), "events");
  private final IcebergFormat coordinator;
  private final List<IcebergFormat> tasks = new ArrayList<>();
  private final List<TableWriter> writers = new ArrayList<>();
  private final Catalog reader;
  private final List<Long> commitNanos = new ArrayList<>();
  private final List<Long> maintainNanos = new ArrayList<>();
  private long nextId;
  private long bytesRewritten;

  MaintenanceRun(Path base, boolean maintained, MaintenanceOptions options) throws IOException {
    this.maintained = maintained;
    this.options = options;
    Files.createDirectories(base);
    Map<String, String> props = new HashMap<>();
    props.put("name", "bench-sink");
    props.put("kafka.bootstrap.servers", "localhost:9092");
    props.put("catalogs", "local");
    props.put("catalog.local.type", "jdbc");
    props.put("catalog.local.uri", "jdbc:sqlite:" + base.resolve("catalog.db"));
    props.put("catalog.local.warehouse", base.resolve("warehouse").toString());
    props.put("routes", "events");
    props.put("route.events.topics", TOPIC);
    props.put("route.events.auto-create", "true");
    config = new StreamhouseSinkConfig(props);
    coordinator = new IcebergFormat(config.catalog("local"), config.connectorName(), 0);
    for (int t = 0; t < TASKS; t++) {
      tasks.add(new IcebergFormat(config.catalog("local"), config.connectorName(), t));
    }
    Map<String, String> readerProps = new HashMap<>();
    readerProps.put(CatalogUtil.ICEBERG_CATALOG_TYPE, "jdbc");
    readerProps.put("uri", "jdbc:sqlite:" + base.resolve("catalog.db"));
    readerProps.put("warehouse", base.resolve("warehouse").toString());
    readerProps.put("jdbc.schema-version", "V1");
    reader = CatalogUtil.buildIcebergCatalog("local", readerProps, new Configuration());
    tableDir = base.resolve("warehouse").resolve("bench").resolve("events");
  }

  private MaintenanceSettings settings(boolean expire) {
    // enabled, interval, budget (unused here), expiry max age, min snapshots, compaction on,
    // its minimum input files and group size (the connector's defaults), no orphan cleanup.
    return new MaintenanceSettings(
        true,
        0,
        300_000,
        expire ? options.expireMaxAgeMs() : 0,
        options.expireMinSnapshots(),
        true,
        5,
        512L << 20,
        16L << 20,
        0);
  }

  void commitRounds(List<Integer> checkpoints, List<Map<String, String>> rows) throws Exception {
    int last = checkpoints.get(checkpoints.size() - 1);
    int next = 0;
    long offset = 0;
    int perTask = options.recordsPerCommit() / TASKS;
    long began = System.nanoTime();
    for (int round = 1; round <= last; round++) {
      List<OfferedBatch> offered = new ArrayList<>();
      for (int t = 0; t < TASKS; t++) {
        PreparedFiles files = write(t, offset, perTask);
        offered.add(
            new OfferedBatch(
                "t" + t + "-r" + round,
                t,
                Map.of(new TopicPartition(TOPIC, t), new OffsetRange(offset, offset + perTask)),
                files,
                0L));
      }
      offset += perTask;
      long start = System.nanoTime();
      CommitOutcome outcome = coordinator.commit(table, round, offered, true);
      commitNanos.add(System.nanoTime() - start);
      if (outcome.decisions().values().stream().anyMatch(d -> d != BatchPlan.Decision.APPLY)) {
        throw new IllegalStateException("round " + round + ": " + outcome.decisions());
      }
      // A checkpoint looks before the round's pass: the most the table holds between passes.
      if (round == checkpoints.get(next)) {
        rows.add(checkpoint(round));
        next++;
        System.err.printf(
            "%s maintenance: %d commits done, %d s%n",
            maintained ? "with" : "without", round, (System.nanoTime() - began) / 1_000_000_000L);
      }
      if (maintained && round % options.maintainEvery() == 0) {
        long m = System.nanoTime();
        MaintenanceReport report =
            coordinator.maintain(
                table,
                settings(true),
                System.nanoTime() + 300_000_000_000L,
                MaintenanceCheckpoints.NONE);
        maintainNanos.add(System.nanoTime() - m);
        bytesRewritten += report.bytesRewritten();
      }
    }
  }

  /** A task's writer goes on after each commit's files, as in the connector's tasks. */
  private PreparedFiles write(int task, long from, int count) throws Exception {
    while (writers.size() <= task) {
      writers.add(
          tasks
              .get(writers.size())
              .openWriter(
                  table, config.routes().get(0), record(from), new FileBudget(64, 64L << 20))
              .orElseThrow());
    }
    TableWriter writer = writers.get(task);
    for (long offset = from; offset < from + count; offset++) {
      writer.write(record(offset * TASKS + task)); // ids distinct across the tasks
    }
    return writer.prepare();
  }

  private SinkRecord record(long id) {
    Struct value =
        new Struct(EVENT)
            .put("id", id)
            .put("customer", "customer-" + (id % 1000))
            .put("amount", id * 0.25)
            .put("created_at", new java.util.Date(1_767_225_600_000L + id * 1000L));
    return new SinkRecord(TOPIC, 0, Schema.STRING_SCHEMA, "k" + id, EVENT, value, id);
  }

  private Map<String, String> checkpoint(int commits) throws IOException {
    Table t = reader.loadTable(identifier());
    List<Long> window =
        commitNanos.subList(commitNanos.size() - Math.min(WINDOW, commits), commitNanos.size());
    long[] sorted = window.stream().mapToLong(Long::longValue).sorted().toArray();
    double mean = Arrays.stream(sorted).average().orElse(0) / 1e6;
    double p99 = sorted[(int) Math.ceil(0.99 * sorted.length) - 1] / 1e6;
    Path metadataJson =
        Path.of(pathOf(((HasTableOperations) t).operations().current().metadataFileLocation()));
    int snapshots = 0;
    for (Snapshot ignored : t.snapshots()) {
      snapshots++;
    }
    long[] metadataDir = sizeOf(tableDir.resolve("metadata"));
    Map<String, String> row = new LinkedHashMap<>();
    row.put("maintenance", maintained ? "every " + options.maintainEvery() : "off");
    row.put("commits", String.format("%,d", commits));
    row.put("commit ms mean", String.format("%.1f", mean));
    row.put("commit ms p99", String.format("%.1f", p99));
    row.put("metadata.json bytes", String.format("%,d", Files.size(metadataJson)));
    row.put("snapshots", String.format("%,d", snapshots));
    row.put("live data files", dataFiles(t));
    row.put("metadata/ files", String.format("%,d", metadataDir[0]));
    row.put("metadata/ bytes", String.format("%,d", metadataDir[1]));
    row.put(
        "pass ms mean/max",
        maintainNanos.isEmpty()
            ? "-"
            : String.format(
                "%.0f/%.0f",
                maintainNanos.stream().mapToLong(Long::longValue).average().orElse(0) / 1e6,
                maintainNanos.stream().mapToLong(Long::longValue).max().orElse(0) / 1e6));
    row.put(
        "MB rewritten so far",
        maintained ? String.format("%,.1f", bytesRewritten / 1048576.0) : "-");
    maintainNanos.clear();
    return row;
  }

  void scanBeforeAndAfterCompaction(List<Map<String, String>> rows) throws IOException {
    rows.add(scan("without maintenance"));
    long start = System.nanoTime();
    MaintenanceReport report =
        coordinator.maintain(
            table,
            settings(false),
            System.nanoTime() + 600_000_000_000L,
            MaintenanceCheckpoints.NONE);
    Map<String, String> after = scan("after one compaction pass");
    after.put(
        "pass",
        String.format(
            "%,d files rewritten into %,d in %,d ms",
            report.filesRewritten(),
            report.filesWritten(),
            (System.nanoTime() - start) / 1_000_000));
    rows.add(after);
  }

  Map<String, String> scan(String what) throws IOException {
    Table t = reader.loadTable(identifier());
    long[] ms = new long[3];
    long rows = 0;
    for (int i = 0; i < ms.length; i++) {
      t.refresh();
      long start = System.nanoTime();
      rows = 0;
      try (CloseableIterable<Record> records = IcebergGenerics.read(t).build()) {
        for (Record ignored : records) {
          rows++;
        }
      }
      ms[i] = (System.nanoTime() - start) / 1_000_000;
    }
    Arrays.sort(ms);
    Map<String, String> row = new LinkedHashMap<>();
    row.put("table", what);
    row.put("data files", dataFiles(t));
    row.put("rows", String.format("%,d", rows));
    row.put("scan ms (median of 3)", String.format("%,d", ms[1]));
    row.put("pass", "");
    return row;
  }

  private TableIdentifier identifier() {
    return TableIdentifier.of(Namespace.of(table.namespace().toArray(String[]::new)), table.name());
  }

  @Override
  public void close() throws Exception {
    writers.forEach(TableWriter::close);
    coordinator.close();
    for (IcebergFormat task : tasks) {
      task.close();
    }
    if (reader instanceof AutoCloseable closeable) {
      closeable.close();
    }
  }

  private static String dataFiles(Table t) {
    return String.format(
        "%,d", Long.parseLong(t.currentSnapshot().summary().get("total-data-files")));
  }

  private static String pathOf(String location) {
    return location.startsWith("file:") ? java.net.URI.create(location).getPath() : location;
  }

  /** Files and bytes under a directory. */
  private static long[] sizeOf(Path directory) {
    try (Stream<Path> files = Files.walk(directory)) {
      long[] total = new long[2];
      files
          .filter(Files::isRegularFile)
          .forEach(
              f -> {
                total[0]++;
                try {
                  total[1] += Files.size(f);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
      return total;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
