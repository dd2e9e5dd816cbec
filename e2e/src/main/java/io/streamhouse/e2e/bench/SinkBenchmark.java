package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.ConnectWorker;
import io.streamhouse.e2e.IcebergTables;
import io.streamhouse.e2e.JsonRecordProducer;
import io.streamhouse.e2e.LocalStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;

/**
 * Drains a backlog of JSON records ({@link BenchRecords}: Connect JsonConverter with schemas, 11
 * leaf columns, one table) with our sink (1 and 2 tasks), a do-nothing sink (the ceiling) and the
 * Apache Iceberg sink 1.12.0 (on a 4.3 worker: it does not start on 4.4), each in a fresh worker
 * JVM, and prints records/s, MB/s, peak worker memory and commit latency.
 *
 * <pre>
 * e2e/benchmark.sh [--records 1000000] [--partitions 4] [--commit-interval-ms 2000] [--repeat 1]
 *     [--worker-version 4.3.1] [--skip-apache] [--skip-ceiling]
 *     [--kafka-metadata topic,partition,offset,timestamp,key,headers]
 *     [--value-converter CLASS] [--value-converter-for streamhouse,apache,do-nothing]
 * </pre>
 *
 * <p>{@code --kafka-metadata LIST} turns on our sink's Kafka metadata column ({@code
 * route.bench.kafka-metadata}); with {@code headers} in it every record gets two small headers (for
 * every sink, so that all drain the same topic).
 *
 * <p>Our sink runs on the Kafka worker {@code --worker-version}, by default the Apache sink's
 * 4.3.1, so that both sinks and the do-nothing sink drain the same topic on the same worker; with
 * another version each worker version gets its own broker, backlog and do-nothing runs.
 *
 * <p>{@code --value-converter CLASS} (for example {@code
 * io.streamhouse.connect.converter.FastJsonConverter}) replaces Connect's {@code JsonConverter}
 * (with {@code schemas.enable=true}) in the runs of the sinks {@code --value-converter-for} names,
 * by default ours only; those runs are labelled with the converter's simple name.
 *
 * <p>With {@code --repeat N} every configuration drains N times, the sinks taking turns, and the
 * comparison is made between the medians.
 *
 * <p>A run ends when the last record is durable: in the table for the table sinks (the snapshot
 * watermarks or record count), in the committed consumer offsets for the do-nothing sink. Both
 * table sinks use the same commit interval, the only setting they get that a user would not write.
 */
public final class SinkBenchmark {
  private static final Pattern COMMIT_MS =
      Pattern.compile("\\[([^|\\]]+)\\|task-\\d+\\] Commit \\d+ of .* in \\d+ files, (\\d+) ms");
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(20);

  /** The Kafka worker the Apache Iceberg sink 1.12.0 runs on: it does not start on 4.4. */
  static final String APACHE_WORKER = "4.3.1";

  /** Connect's converter of the records, the default of every run. */
  private static final String JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter";

  /** The routing field's value of every record: one table. */
  private static final String TABLE_FIELD_VALUE = "bench.orders";

  private final Path root;
  private final Path runDir;
  private final int records;
  private final int partitions;
  private final String mavenCmd;
  private final String commitIntervalMs;
  private final String workerVersion;
  private final Path ourPlugin;
  private final String valueConverter;
  private final java.util.Set<String> valueConverterFor;
  private final List<Map<String, String>> results = new ArrayList<>();
  private final List<CostOverCeiling.Run> runs = new ArrayList<>();
  private final java.util.Set<String> configsShown = new java.util.HashSet<>();
  private long payloadBytes;
  private String lastConnector;

  /** {@code --kafka-metadata}: our route's Kafka metadata fields; empty for none. */
  private String kafkaMetadata = "";

  private SinkBenchmark(
      Path root,
      Path runDir,
      int records,
      int partitions,
      String mavenCmd,
      String commitIntervalMs,
      String workerVersion,
      Path ourPlugin,
      String valueConverter,
      java.util.Set<String> valueConverterFor) {
    this.ourPlugin = ourPlugin;
    this.valueConverter = valueConverter;
    this.valueConverterFor = valueConverterFor;
    this.commitIntervalMs = commitIntervalMs;
    this.workerVersion = workerVersion;
    this.root = root;
    this.runDir = runDir;
    this.records = records;
    this.partitions = partitions;
    this.mavenCmd = mavenCmd;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--skip-apache") || args[i].equals("--skip-ceiling")) {
        o.put(args[i].substring(2), "true");
      } else {
        o.put(args[i].substring(2), args[++i]);
      }
    }
    Path root = Path.of(o.getOrDefault("repo-root", ".")).toAbsolutePath().normalize();
    SinkBenchmark bench =
        new SinkBenchmark(
            root,
            Path.of(o.getOrDefault("run-dir", root.resolve("e2e/target/bench").toString()))
                .resolve("run-" + System.currentTimeMillis()),
            Integer.parseInt(o.getOrDefault("records", "1000000")),
            Integer.parseInt(o.getOrDefault("partitions", "4")),
            o.getOrDefault("maven-cmd", root.resolve("mvnw").toString()),
            o.getOrDefault("commit-interval-ms", "2000"),
            o.getOrDefault("worker-version", APACHE_WORKER),
            Path.of(
                o.getOrDefault(
                    "streamhouse-plugin",
                    root.resolve("connector/target/plugin-path/streamhouse-connect").toString())),
            o.getOrDefault("value-converter", JSON_CONVERTER),
            java.util.Set.of(o.getOrDefault("value-converter-for", "streamhouse").split(",")));
    bench.kafkaMetadata = o.getOrDefault("kafka-metadata", "");
    bench.run(
        !o.containsKey("skip-apache"),
        !o.containsKey("skip-ceiling"),
        Integer.parseInt(o.getOrDefault("repeat", "1")));
  }

  private void run(boolean withApache, boolean withCeiling, int repeat) throws Exception {
    // One stack (broker and worker) per worker version: with ours on the Apache sink's version (the
    // default) both sinks and the do-nothing sink drain the same topic on the same worker.
    Map<String, List<String>> sinksByWorker = new LinkedHashMap<>();
    sinksByWorker.computeIfAbsent(workerVersion, v -> new ArrayList<>()).add("streamhouse");
    if (withApache) {
      sinksByWorker.computeIfAbsent(APACHE_WORKER, v -> new ArrayList<>()).add("apache");
    }
    printSettings(withApache);
    Map<String, LocalStack> stacks = new LinkedHashMap<>();
    try {
      for (Map.Entry<String, List<String>> worker : sinksByWorker.entrySet()) {
        Path plugins = runDir.resolve("plugins-" + worker.getKey());
        BenchPlugins.discardSink(plugins);
        // Our plugin also brings the converter, which the other sinks may be given.
        if (worker.getValue().contains("streamhouse") || !valueConverter.equals(JSON_CONVERTER)) {
          BenchPlugins.streamhouse(plugins, ourPlugin);
        }
        if (worker.getValue().contains("apache")) {
          BenchPlugins.apacheIcebergSink(
              plugins, root.resolve("e2e/target/e2e-work/kafka-dists"), mavenCmd);
        }
        LocalStack stack = stack(worker.getKey(), plugins);
        stacks.put(worker.getKey(), stack);
        produce(stack);
      }
      for (LocalStack s : stacks.values()) {
        stop(s.worker()); // each drain starts a fresh worker JVM and stops it after
      }
      // Sinks take turns, so that a slower stretch of the shared machine does not fall on one of
      // them.
      for (int round = 1; round <= repeat; round++) {
        for (int tasks = 1; tasks <= 2; tasks++) {
          for (Map.Entry<String, List<String>> worker : sinksByWorker.entrySet()) {
            LocalStack stack = stacks.get(worker.getKey());
            if (withCeiling) {
              drain(
                  stack,
                  label("do-nothing sink", "do-nothing"),
                  "discard",
                  tasks,
                  discardConfig(tasks));
            }
            if (worker.getValue().contains("streamhouse")) {
              drain(stack, ours(), "iceberg", tasks, streamhouseConfig(stack, tasks));
            }
            if (worker.getValue().contains("apache")) {
              drain(
                  stack,
                  label("Apache Iceberg sink 1.12.0", "apache"),
                  "apache",
                  tasks,
                  apacheConfig(stack, tasks));
            }
          }
        }
      }
    } finally {
      stacks.values().forEach(LocalStack::close);
    }
    List<CostOverCeiling.Run> medians = RepeatedRuns.medians(runs);
    for (int i = 0; i < results.size(); i++) {
      results.get(i).putAll(CostOverCeiling.columns(runs.get(i), medians));
    }
    printTable(results);
    if (repeat > 1) {
      List<Map<String, String>> summary = new ArrayList<>();
      for (CostOverCeiling.Run median : medians) {
        Map<String, String> row = RepeatedRuns.row(median, runs, records);
        row.putAll(CostOverCeiling.columns(median, medians));
        summary.add(row);
      }
      System.out.println();
      System.out.println("Medians of " + repeat + " runs each:");
      printTable(summary);
    }
    System.out.println();
    RepeatedRuns.throughputRatios(ours(), runs).forEach(System.out::println);
    CostOverCeiling.comparison(ours(), medians).forEach(System.out::println);
  }

  /** Our sink's label in the tables. */
  private String ours() {
    return label("streamhouse", "streamhouse");
  }

  /** A sink's label: its name, and the converter when it is not Connect's JsonConverter. */
  private String label(String sink, String converterKey) {
    return converterOf(converterKey).equals(JSON_CONVERTER)
        ? sink
        : sink + " + " + converterOf(converterKey).replaceFirst(".*\\.", "");
  }

  private String converterOf(String converterKey) {
    return valueConverterFor.contains(converterKey) ? valueConverter : JSON_CONVERTER;
  }

  private LocalStack stack(String version, Path plugins) {
    return LocalStack.settings()
        .kafkaVersion(version)
        .runDir(runDir.resolve("kafka-" + version))
        .pluginPath(plugins)
        .distributionCache(root.resolve("e2e/target/e2e-work/kafka-dists"))
        .mavenCmd(mavenCmd)
        .workerJvmFlags(workerFlags("2g"))
        .start();
  }

  /**
   * With STREAMHOUSE_BENCH_JFR set, each worker JVM records a JFR profile into its run folder, kept
   * as {@code worker-<connector>.jfr} once the JVM has exited (see {@link #stop}).
   */
  static List<String> workerFlags(String heap) {
    List<String> flags = new ArrayList<>(List.of("-Xmx" + heap, "-XX:+UseG1GC"));
    if (System.getenv("STREAMHOUSE_BENCH_JFR") != null) {
      flags.add("-XX:StartFlightRecording=settings=profile,filename=worker.jfr,dumponexit=true");
    }
    return flags;
  }

  /** What the runs are given beyond the defaults, and where each sink runs. */
  private void printSettings(boolean withApache) {
    System.out.printf(
        "Workers: streamhouse on Kafka %s%s%n",
        workerVersion,
        withApache
            ? ", Apache Iceberg sink 1.12.0 on Kafka "
                + APACHE_WORKER
                + (workerVersion.equals(APACHE_WORKER) ? " (the same worker version)" : "")
            : "");
    System.out.printf(
        "non-default: commit.interval.ms=%s%s%s%n",
        commitIntervalMs,
        kafkaMetadata.isBlank()
            ? ""
            : ", route.bench.kafka-metadata="
                + kafkaMetadata
                + (kafkaMetadata.contains("headers")
                    ? " (every record with 2 headers, for every sink)"
                    : ""),
        withApache
            ? " (the Apache sink: iceberg.control.commit.interval-ms="
                + commitIntervalMs
                + ", iceberg.kafka.auto.offset.reset=earliest)"
            : "");
    System.out.printf(
        "value.converter: %s (schemas.enable=true)%s%n",
        valueConverter,
        valueConverter.equals(JSON_CONVERTER)
            ? ""
            : " for " + valueConverterFor + ", " + JSON_CONVERTER + " for the others");
  }

  /** The backlog: {@link BenchRecords} of one table, {@code records} of them. */
  private void produce(LocalStack stack) {
    stack.createTopic("bench", partitions, Map.of());
    BenchRecords source = new BenchRecords();
    long start = System.nanoTime();
    try (JsonRecordProducer producer = stack.producer()) {
      for (long id = 0; id < records; id++) {
        String value = source.nextJson(id, TABLE_FIELD_VALUE);
        if (kafkaMetadata.contains("headers")) {
          producer.sendRaw(
              "bench",
              null,
              System.currentTimeMillis(),
              "order-" + id,
              value,
              List.of(Map.entry("trace-id", "t-" + id), Map.entry("source", "bench")));
        } else {
          producer.sendRaw("bench", null, "order-" + id, value);
        }
      }
      producer.flush();
    }
    payloadBytes = source.payloadBytes();
    System.out.printf(
        "Produced %,d records on the Kafka %s broker (%.0f bytes of payload each, %.0f with the schema;"
            + " 11 leaf columns; %d partitions) in %.1f s%n",
        records,
        stack.kafkaVersion(),
        source.meanPayloadBytes(),
        source.meanRecordBytes(),
        partitions,
        (System.nanoTime() - start) / 1e9);
  }

  private void drain(
      LocalStack stack, String sink, String kind, int tasks, Map<String, String> config)
      throws Exception {
    ConnectWorker worker = stack.worker();
    worker.restart(Duration.ofMinutes(2)); // a fresh JVM: its peak memory is this run's alone
    String name = kind + "-" + tasks + "-" + System.currentTimeMillis() % 100_000;
    lastConnector = name;
    String table = "bench." + name.replace('-', '_');
    try (Admin admin = stack.admin()) { // one client polls the do-nothing sink's offsets
      LongSupplier done =
          switch (kind) {
            case "discard" -> () -> committed(admin, name);
            case "iceberg" -> {
              HadoopTableProbe probe =
                  new HadoopTableProbe(config.get("catalog.bench.warehouse"), table);
              yield () -> watermarkSum(probe, name);
            }
            default -> {
              HadoopTableProbe probe =
                  new HadoopTableProbe(config.get("iceberg.catalog.warehouse"), table);
              yield () -> apacheRecords(probe);
            }
          };
      if (kind.equals("iceberg")) {
        config.put("route.bench.table", table);
        config.put("control.topic", "ctl-" + name);
      }
      if (kind.equals("apache")) {
        config.put("iceberg.tables", table);
        config.put("iceberg.control.topic", "ctl-" + name);
        stack.createTopic("ctl-" + name, 1, Map.of());
      }
      if (configsShown.add(sink)) {
        System.out.println(
            "Config of "
                + sink
                + " (names vary per run): "
                + new java.util.TreeMap<>(config)
                    .toString()
                    .replace(runDir.toString(), "<run-dir>"));
      }
      long start = System.nanoTime();
      stack.connect().putConfig(name, config);
      long last = 0;
      long quarterNanos = -1;
      long quarterRecords = 0;
      while (last < records) {
        stack.connect().requireNotFailed(name);
        if (System.nanoTime() - start > DRAIN_TIMEOUT.toNanos()) {
          throw new IllegalStateException(
              sink
                  + " did not drain "
                  + records
                  + " records in "
                  + DRAIN_TIMEOUT
                  + " ("
                  + last
                  + " so far); see "
                  + worker.logFile());
        }
        Thread.sleep(200); // polling interval of a benchmark measurement loop, not synchronization
        last = done.getAsLong();
        if (quarterNanos < 0 && last >= records / 4) {
          quarterNanos = System.nanoTime();
          quarterRecords = last;
        }
      }
      long end = System.nanoTime();
      double seconds = (end - start) / 1e9;
      Map<String, String> row = new LinkedHashMap<>();
      row.put("sink", sink);
      row.put("worker", stack.kafkaVersion());
      row.put("tasks", Integer.toString(tasks));
      row.put("seconds", String.format("%.1f", seconds));
      row.put("records/s", String.format("%,.0f", records / seconds));
      row.put("MB/s", String.format("%.1f", payloadBytes / seconds / 1e6));
      // After the first quarter is durable the JVM is warm: the rate of the rest is the steady
      // rate.
      double steadySeconds = (end - quarterNanos) / 1e9;
      double steadyRate =
          quarterRecords < records && steadySeconds > 0
              ? (records - quarterRecords) / steadySeconds
              : -1;
      row.put("steady records/s", steadyRate > 0 ? String.format("%,.0f", steadyRate) : "n/a");
      row.put("peak worker RSS MB", String.format("%.0f", worker.peakRssBytes() / 1e6));
      stack.connect().delete(name);
      // The coordinator logs a commit after the snapshot is visible: read the log once the tasks
      // stopped.
      Thread.sleep(2000);
      row.put("commit latency ms (avg/max)", commitLatency(worker.logFile(), name));
      results.add(row);
      runs.add(
          new CostOverCeiling.Run(
              sink, stack.kafkaVersion(), tasks, kind.equals("discard"), seconds, steadyRate));
      System.out.println(row);
    } finally {
      stop(worker); // an idle worker would take CPU from the next drain
    }
  }

  /**
   * Stops the worker JVM and names its profile (if any) after the connector it ran, so that the
   * next run keeps its own.
   */
  private void stop(ConnectWorker worker) throws java.io.IOException {
    worker.close();
    if (lastConnector != null) {
      keepProfile(worker, lastConnector);
    }
  }

  /**
   * Names a stopped worker's profile (if any) after the connector it ran, so that the next run
   * keeps its own.
   */
  static void keepProfile(ConnectWorker worker, String connector) throws java.io.IOException {
    Path profile = worker.logFile().resolveSibling("worker.jfr");
    if (Files.exists(profile)) {
      Files.move(
          profile,
          profile.resolveSibling("worker-" + connector + ".jfr"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private Map<String, String> discardConfig(int tasks) {
    Map<String, String> c = base(tasks, converterOf("do-nothing"));
    c.put("connector.class", BenchPlugins.DISCARD_CONNECTOR);
    return c;
  }

  private Map<String, String> streamhouseConfig(LocalStack stack, int tasks) throws Exception {
    Path warehouse = warehouse("streamhouse");
    Map<String, String> c = base(tasks, converterOf("streamhouse"));
    c.put("connector.class", "io.streamhouse.connect.StreamhouseSinkConnector");
    c.put("kafka.bootstrap.servers", stack.bootstrapServers());
    c.put("catalogs", "bench");
    c.put("catalog.bench.type", "hadoop");
    c.put("catalog.bench.warehouse", warehouse.toUri().toString());
    c.put("routes", "bench");
    c.put("route.bench.topics", "bench");
    c.put("route.bench.auto-create", "true");
    c.put("commit.interval.ms", commitIntervalMs);
    if (!kafkaMetadata.isBlank()) {
      c.put("route.bench.kafka-metadata", kafkaMetadata);
    }
    return c;
  }

  private Map<String, String> apacheConfig(LocalStack stack, int tasks) throws Exception {
    Path warehouse = warehouse("apache");
    Map<String, String> c = base(tasks, converterOf("apache"));
    c.put("connector.class", "org.apache.iceberg.connect.IcebergSinkConnector");
    c.put("iceberg.catalog.type", "hadoop");
    c.put("iceberg.catalog.warehouse", warehouse.toUri().toString());
    c.put("iceberg.tables.auto-create-enabled", "true");
    c.put("iceberg.control.commit.interval-ms", commitIntervalMs);
    c.put("iceberg.kafka.auto.offset.reset", "earliest");
    return c;
  }

  /** A fresh warehouse folder of one sink. */
  private Path warehouse(String sink) throws java.io.IOException {
    return Files.createDirectories(runDir.resolve("warehouse-" + sink));
  }

  private static Map<String, String> base(int tasks, String valueConverter) {
    Map<String, String> c = new HashMap<>();
    c.put("topics", "bench");
    c.put("tasks.max", Integer.toString(tasks));
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", valueConverter);
    c.put("value.converter.schemas.enable", "true");
    return c;
  }

  /** The sum of a sink's committed consumer offsets over its partitions; 0 while there are none. */
  static long committed(Admin admin, String connector) {
    try {
      return admin
          .listConsumerGroupOffsets("connect-" + connector)
          .partitionsToOffsetAndMetadata()
          .get()
          .values()
          .stream()
          .mapToLong(OffsetAndMetadata::offset)
          .sum();
    } catch (Exception e) {
      return 0;
    }
  }

  private static long watermarkSum(HadoopTableProbe table, String connector) {
    return IcebergTables.watermarksOf(table.currentSummary(), connector).values().stream()
        .mapToLong(Long::longValue)
        .sum();
  }

  private static long apacheRecords(HadoopTableProbe table) {
    return Long.parseLong(table.currentSummary().getOrDefault("total-records", "0"));
  }

  static String commitLatency(Path log, String connector) throws Exception {
    long sum = 0;
    long max = 0;
    int n = 0;
    for (String line : Files.readAllLines(log)) {
      Matcher m = COMMIT_MS.matcher(line);
      if (m.find() && m.group(1).equals(connector)) {
        long ms = Long.parseLong(m.group(2));
        sum += ms;
        max = Math.max(max, ms);
        n++;
      }
    }
    return n == 0 ? "n/a" : (sum / n) + "/" + max + " (" + n + " commits)";
  }

  /** Prints result rows as a Markdown table (the format of docs/performance.md). */
  static void printTable(List<Map<String, String>> results) {
    if (results.isEmpty()) {
      return;
    }
    List<String> columns = new ArrayList<>(results.get(0).keySet());
    System.out.println();
    System.out.println("| " + String.join(" | ", columns) + " |");
    System.out.println("|" + "---|".repeat(columns.size()));
    for (Map<String, String> row : results) {
      System.out.println("| " + String.join(" | ", columns.stream().map(row::get).toList()) + " |");
    }
  }
}
