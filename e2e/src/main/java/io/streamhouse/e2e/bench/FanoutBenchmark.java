package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.ConnectJson;
import io.streamhouse.e2e.ConnectWorker;
import io.streamhouse.e2e.JsonRecordProducer;
import io.streamhouse.e2e.LocalStack;
import io.streamhouse.e2e.WorkerJmx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;

/**
 * Fan-out benchmark: one topic whose records name their table in a field, values round-robin over N
 * tables (a whole database's change stream in one topic looks like this), drained by our sink into
 * N auto-created Iceberg or Paimon tables, 1 or 2 tasks, each run in a fresh worker JVM with a
 * fixed heap. Prints records/s, MB/s, peak heap and RSS, files per table per commit and commit
 * round durations. A run ends when Connect's committed offsets reach the end of the topic: our sink
 * lets Connect commit only offsets durable in every table.
 */
public final class FanoutBenchmark {
  private static final ConnectJson.StructSchema SCHEMA =
      ConnectJson.struct("bench.Row")
          .field("id", "int64", false)
          .field("table", "string", false)
          .field("customer", "string", false)
          .field("amount", "double", false)
          .field(
              "created_at",
              Map.of(
                  "type",
                  "int64",
                  "optional",
                  false,
                  "name",
                  "org.apache.kafka.connect.data.Timestamp",
                  "version",
                  1))
          .field("note", "string", true);
  private static final Pattern TABLE_COMMIT =
      Pattern.compile(
          "Connector (\\S+) commit (\\d+) of (\\S+): \\d+ batches, \\d+ records in (\\d+) files, (\\d+) ms");
  private static final Pattern ROUND =
      Pattern.compile("Connector (\\S+) commit \\d+ round: (\\d+) tables in (\\d+) ms");
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(15);

  private final Path root;
  private final Path runDir;
  private final int records;
  private final String commitIntervalMs;
  private final String heap;
  private final List<Map<String, String>> results = new ArrayList<>();

  private FanoutBenchmark(
      Path root, Path runDir, int records, String commitIntervalMs, String heap) {
    this.root = root;
    this.runDir = runDir;
    this.records = records;
    this.commitIntervalMs = commitIntervalMs;
    this.heap = heap;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      o.put(args[i].substring(2), args[i + 1]);
    }
    Path root = Path.of(o.getOrDefault("repo-root", ".")).toAbsolutePath().normalize();
    FanoutBenchmark bench =
        new FanoutBenchmark(
            root,
            Path.of(o.getOrDefault("run-dir", root.resolve("e2e/target/bench").toString()))
                .resolve("fanout-" + System.currentTimeMillis()),
            Integer.parseInt(o.getOrDefault("records", "500000")),
            o.getOrDefault("commit-interval-ms", "10000"),
            o.getOrDefault("heap", "1g"));
    bench.run(
        ints(o.getOrDefault("tables", "1,10,200,1000")),
        ints(o.getOrDefault("tasks", "1,2")),
        Arrays.asList(o.getOrDefault("formats", "iceberg,paimon").split(",")));
    if (o.containsKey("apache-tables")) {
      bench.runApache(ints(o.get("apache-tables")), ints(o.getOrDefault("apache-tasks", "1")));
    }
    System.out.println();
    System.out.printf(
        "Fan-out: %,d records per run, round-robin over the tables, commit every %s ms, worker heap %s%n",
        bench.records, bench.commitIntervalMs, bench.heap);
    SinkBenchmark.printTable(bench.results);
  }

  /**
   * The Apache Iceberg sink 1.12.0 with dynamic routing ({@code iceberg.tables.route-field}) on a
   * Kafka 4.3 worker (it does not start on 4.4), same records, Hadoop catalog on local disk. Its
   * drain ends when the tables' snapshots hold every record: it commits consumer offsets before its
   * table commits, so the offsets say nothing.
   */
  private void runApache(List<Integer> tableCounts, List<Integer> taskCounts) throws Exception {
    Path plugins = runDir.resolve("plugins-4.3");
    BenchPlugins.apacheIcebergSink(
        plugins, root.resolve("e2e/target/e2e-work/kafka-dists"), root.resolve("mvnw").toString());
    try (LocalStack stack =
        LocalStack.settings()
            .kafkaVersion("4.3.1")
            .runDir(runDir.resolve("kafka-4.3"))
            .pluginPath(plugins)
            .distributionCache(root.resolve("e2e/target/e2e-work/kafka-dists"))
            .mavenCmd(root.resolve("mvnw").toString())
            .workerJvmFlags(SinkBenchmark.workerFlags(heap))
            .start()) {
      long payloadBytes = 0;
      for (int tables : tableCounts) {
        payloadBytes = produce(stack, tables);
      }
      stack.worker().close();
      for (int tables : tableCounts) {
        for (int tasks : taskCounts) {
          drainApache(stack, tables, tasks, payloadBytes);
        }
      }
    }
  }

  private void drainApache(LocalStack stack, int tables, int tasks, long payloadBytes)
      throws Exception {
    ConnectWorker worker = stack.worker();
    worker.restart(Duration.ofMinutes(2));
    String name = "apache-" + tables + "-" + tasks + "-" + System.currentTimeMillis() % 100_000;
    Path warehouse = Files.createDirectories(runDir.resolve("warehouse-" + name));
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", "org.apache.iceberg.connect.IcebergSinkConnector");
    c.put("topics", topic(tables));
    c.put("tasks.max", Integer.toString(tasks));
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("value.converter.schemas.enable", "true");
    c.put("iceberg.catalog.type", "hadoop");
    c.put("iceberg.catalog.warehouse", warehouse.toUri().toString());
    c.put("iceberg.tables.dynamic-enabled", "true");
    c.put("iceberg.tables.route-field", "table");
    c.put("iceberg.tables.auto-create-enabled", "true");
    c.put("iceberg.control.commit.interval-ms", commitIntervalMs);
    c.put("iceberg.control.commit.timeout-ms", "60000");
    c.put("iceberg.kafka.auto.offset.reset", "earliest");
    c.put("iceberg.control.topic", "ctl-" + name);
    stack.createTopic("ctl-" + name, 1, Map.of());
    List<HadoopTableProbe> probes = new ArrayList<>();
    for (int t = 0; t < tables; t++) {
      probes.add(new HadoopTableProbe(warehouse.toUri().toString(), "fanout.t" + t));
    }
    try {
      Map<String, String> row =
          timedDrain(
              stack,
              name,
              c,
              () ->
                  probes.stream()
                      .mapToLong(
                          p ->
                              Long.parseLong(p.currentSummary().getOrDefault("total-records", "0")))
                      .sum(),
              1000,
              "Apache Iceberg sink 1.12.0 (4.3 worker)",
              tables,
              tasks,
              payloadBytes);
      long files =
          probes.stream()
              .mapToLong(
                  p -> Long.parseLong(p.currentSummary().getOrDefault("total-data-files", "0")))
              .sum();
      row.put("files/table/commit (mean/max)", "n/a");
      row.put("commit rounds", "n/a");
      row.put("round ms (mean/max)", "n/a");
      row.put("data files", Long.toString(files));
      stack.connect().delete(name);
      results.add(row);
      System.out.println(row);
    } finally {
      worker.close();
    }
  }

  private static List<Integer> ints(String list) {
    return Arrays.stream(list.split(",")).map(String::trim).map(Integer::parseInt).toList();
  }

  private void run(List<Integer> tableCounts, List<Integer> taskCounts, List<String> formats)
      throws Exception {
    Path plugins = runDir.resolve("plugins");
    BenchPlugins.streamhouse(
        plugins, root.resolve("connector/target/plugin-path/streamhouse-connect"));
    try (LocalStack stack =
        LocalStack.settings()
            .kafkaVersion("4.4.0")
            .runDir(runDir.resolve("kafka"))
            .pluginPath(plugins)
            .distributionCache(root.resolve("e2e/target/e2e-work/kafka-dists"))
            .mavenCmd(root.resolve("mvnw").toString())
            .workerJvmFlags(SinkBenchmark.workerFlags(heap))
            .start()) {
      long payloadBytes = 0;
      for (int tables : tableCounts) {
        payloadBytes = produce(stack, tables);
      }
      stack.worker().close();
      for (String format : formats) {
        for (int tables : tableCounts) {
          for (int tasks : taskCounts) {
            drain(stack, format, tables, tasks, payloadBytes);
          }
        }
      }
    }
  }

  private static String topic(int tables) {
    return "fanout-" + tables;
  }

  private long produce(LocalStack stack, int tables) {
    stack.createTopic(topic(tables), 4, Map.of());
    Random random = new Random(42);
    long payloadBytes = 0;
    long start = System.nanoTime();
    try (JsonRecordProducer producer = stack.producer()) {
      for (long id = 0; id < records; id++) {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("id", id);
        payload.put("table", "fanout.t" + (id % tables));
        payload.put("customer", "customer-" + random.nextInt(10_000));
        payload.put("amount", Math.round(random.nextDouble() * 100_000) / 100.0);
        payload.put("created_at", 1_767_225_600_000L + id * 100);
        payload.put("note", Long.toString(random.nextLong(), 36).repeat(8));
        payloadBytes +=
            io.streamhouse.e2e.JsonText.of(payload).getBytes(StandardCharsets.UTF_8).length;
        producer.sendRaw(
            topic(tables),
            null,
            "row-" + id,
            io.streamhouse.e2e.JsonText.of(ConnectJson.envelope(SCHEMA, payload)));
      }
      producer.flush();
    }
    System.out.printf(
        "Produced %,d records for %d tables (%.0f bytes of payload each) in %.1f s%n",
        records, tables, (double) payloadBytes / records, (System.nanoTime() - start) / 1e9);
    return payloadBytes;
  }

  private void drain(LocalStack stack, String format, int tables, int tasks, long payloadBytes)
      throws Exception {
    ConnectWorker worker = stack.worker();
    worker.restart(Duration.ofMinutes(2));
    String name = format + "-" + tables + "-" + tasks + "-" + System.currentTimeMillis() % 100_000;
    Map<String, String> config = config(stack, format, name, tables, tasks);
    try (Admin admin = stack.admin()) {
      Map<String, String> row =
          timedDrain(
              stack,
              name,
              config,
              () -> SinkBenchmark.committed(admin, name),
              200,
              format,
              tables,
              tasks,
              payloadBytes);
      stack.connect().delete(name);
      Thread.sleep(2000); // the last commit's log lines
      row.putAll(commitFigures(worker.logFile(), name, tables));
      row.put(
          "data files", Long.toString(dataFiles(Path.of(config.get("catalog.bench.warehouse")))));
      results.add(row);
      System.out.println(row);
    } finally {
      worker.close();
      SinkBenchmark.keepProfile(worker, name); // with STREAMHOUSE_BENCH_JFR set
    }
  }

  /**
   * Puts {@code config} and polls every {@code pollMs} until {@code done} reaches the record count,
   * watching the worker's heap over JMX; the columns every run has, up to its peak RSS.
   */
  private Map<String, String> timedDrain(
      LocalStack stack,
      String name,
      Map<String, String> config,
      LongSupplier done,
      long pollMs,
      String format,
      int tables,
      int tasks,
      long payloadBytes)
      throws Exception {
    ConnectWorker worker = stack.worker();
    long peakHeap = 0;
    long peakLive = 0;
    try (WorkerJmx jmx = new WorkerJmx(worker.process().pid())) {
      long start = System.nanoTime();
      stack.connect().putConfig(name, config);
      long drained = 0;
      while (drained < records) {
        stack.connect().requireNotFailed(name);
        if (System.nanoTime() - start > DRAIN_TIMEOUT.toNanos()) {
          throw new IllegalStateException(
              name
                  + " did not drain "
                  + records
                  + " records in "
                  + DRAIN_TIMEOUT
                  + " ("
                  + drained
                  + " so far); see "
                  + worker.logFile());
        }
        Thread.sleep(pollMs); // polling interval of a measurement loop, not synchronization
        peakHeap = Math.max(peakHeap, jmx.heapUsed());
        peakLive = Math.max(peakLive, jmx.heapAfterGc());
        drained = done.getAsLong();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      Map<String, String> row = new LinkedHashMap<>();
      row.put("format", format);
      row.put("tables", Integer.toString(tables));
      row.put("tasks", Integer.toString(tasks));
      row.put("heap", heap);
      row.put("seconds", String.format("%.1f", seconds));
      row.put("records/s", String.format("%,.0f", records / seconds));
      row.put("MB/s", String.format("%.1f", payloadBytes / seconds / 1e6));
      row.put(
          "peak heap MB (used/after GC)",
          String.format("%.0f/%.0f", peakHeap / 1e6, peakLive / 1e6));
      row.put("peak RSS MB", String.format("%.0f", worker.peakRssBytes() / 1e6));
      return row;
    }
  }

  private Map<String, String> config(
      LocalStack stack, String format, String name, int tables, int tasks) throws Exception {
    Path warehouse = Files.createDirectories(runDir.resolve("warehouse-" + name));
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", "io.streamhouse.connect.StreamhouseSinkConnector");
    c.put("topics", topic(tables));
    c.put("tasks.max", Integer.toString(tasks));
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("value.converter.schemas.enable", "true");
    c.put("kafka.bootstrap.servers", stack.bootstrapServers());
    c.put("catalogs", "bench");
    c.put("catalog.bench.warehouse", warehouse.toString());
    if (format.equals("paimon")) {
      c.put("catalog.bench.format", "paimon");
      c.put("catalog.bench.type", "filesystem");
      c.put("route.r.input", "upsert");
      c.put("route.r.primary-key", "id");
      c.put("route.r.buckets", "1");
    } else {
      c.put("catalog.bench.type", "jdbc");
      c.put("catalog.bench.uri", "jdbc:sqlite:" + warehouse.resolve("catalog.db"));
    }
    c.put("routes", "r");
    c.put("route.r.topics", topic(tables));
    c.put("route.r.table.field", "table");
    c.put("route.r.table.allow-regex", "fanout_t[0-9]+");
    c.put("route.r.namespace", "fanout");
    c.put("route.r.auto-create", "true");
    c.put("commit.interval.ms", commitIntervalMs);
    c.put("commit.timeout.ms", "60000");
    c.put("control.topic", "ctl-" + name);
    return c;
  }

  /**
   * Files per table per commit (mean and max) and commit round durations (mean and max), from the
   * worker log.
   */
  static Map<String, String> commitFigures(Path log, String connector, int tables)
      throws Exception {
    long tableCommits = 0;
    long files = 0;
    long maxFiles = 0;
    long rounds = 0;
    long roundMs = 0;
    long maxRoundMs = 0;
    for (String line : Files.readAllLines(log)) {
      Matcher t = TABLE_COMMIT.matcher(line);
      if (t.find() && t.group(1).equals(connector)) {
        long f = Long.parseLong(t.group(4));
        tableCommits++;
        files += f;
        maxFiles = Math.max(maxFiles, f);
      }
      Matcher r = ROUND.matcher(line);
      if (r.find() && r.group(1).equals(connector)) {
        long ms = Long.parseLong(r.group(3));
        rounds++;
        roundMs += ms;
        maxRoundMs = Math.max(maxRoundMs, ms);
      }
    }
    Map<String, String> figures = new LinkedHashMap<>();
    figures.put(
        "files/table/commit (mean/max)",
        tableCommits == 0
            ? "n/a"
            : String.format("%.1f/%d", (double) files / tableCommits, maxFiles));
    figures.put("commit rounds", Long.toString(rounds));
    figures.put("round ms (mean/max)", rounds == 0 ? "n/a" : roundMs / rounds + "/" + maxRoundMs);
    return figures;
  }

  private static long dataFiles(Path warehouse) throws Exception {
    try (Stream<Path> files = Files.walk(warehouse)) {
      return files
          .filter(
              p -> {
                String n = p.getFileName().toString();
                return (n.endsWith(".parquet") || n.endsWith(".orc"))
                    && !p.toString().contains("/metadata/")
                    && !p.toString().contains("/manifest/");
              })
          .count();
    }
  }
}
