package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.ConnectWorker;
import io.streamhouse.e2e.JsonRecordProducer;
import io.streamhouse.e2e.LocalStack;
import io.streamhouse.e2e.WorkerJmx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;

/**
 * Fan-out benchmark: one topic whose records ({@link BenchRecords}) name their table in a field,
 * values round-robin over N tables (a whole database's change stream in one topic looks like this),
 * drained by our sink into N auto-created Iceberg or Paimon tables, 1 or 2 tasks, each run in a
 * fresh worker JVM with a fixed heap. The connector gets the settings a user would write and no
 * others but {@code commit.interval.ms} (printed as the one non-default). Prints records/s, MB/s,
 * peak heap and RSS, files per table per commit, commit round durations, the rounds that passed the
 * commit timeout and the longest wait of a round for the tasks. A run ends when Connect's committed
 * offsets reach the end of the topic: our sink lets Connect commit only offsets durable in every
 * table. It fails when nothing new was committed for 3 minutes.
 */
public final class FanoutBenchmark {
  private static final Pattern TABLE_COMMIT =
      Pattern.compile(
          "\\[([^|\\]]+)\\|task-\\d+\\] Commit (\\d+) of (\\S+): \\d+ batches, \\d+ records in (\\d+) files,"
              + " (\\d+) ms");
  private static final Pattern ROUND =
      Pattern.compile(
          "\\[([^|\\]]+)\\|task-\\d+\\] Commit \\d+ round: (\\d+) tables in (\\d+) ms after (\\d+) ms"
              + " waiting for the tasks");
  private static final Pattern TIMED_OUT =
      Pattern.compile(
          "\\[([^|\\]]+)\\|task-\\d+\\] Commit \\d+: no report for .* after \\d+ ms; committing what"
              + " arrived");
  private static final Pattern ANSWERED =
      Pattern.compile("\\[([^|\\]]+)\\|task-\\d+\\] Answered commit \\d+ in (\\d+) ms");
  private static final Pattern HANDED_OVER =
      Pattern.compile("\\[([^|\\]]+)\\|task-\\d+\\] Handed over (\\d+) batches in (\\d+) ms");
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(15);

  /** A drain fails when nothing new became durable for this long. */
  private static final Duration STALL_TIMEOUT = Duration.ofMinutes(3);

  /** The connector's commit.interval.ms when not set. */
  private static final String DEFAULT_COMMIT_INTERVAL_MS = "60000";

  private final Path root;
  private final Path runDir;
  private final int records;
  private final String commitIntervalMs;
  private final String heap;
  private final boolean restartTaskAtHalf;
  private final List<Map<String, String>> results = new ArrayList<>();
  private final List<String> failures = new ArrayList<>();
  private final Map<Integer, Long> payloadBytes = new HashMap<>();
  private final Map<Integer, String> recordSizes = new LinkedHashMap<>();
  private final java.util.Set<String> configsShown = new java.util.HashSet<>();

  private FanoutBenchmark(
      Path root,
      Path runDir,
      int records,
      String commitIntervalMs,
      String heap,
      boolean restartTaskAtHalf) {
    this.restartTaskAtHalf = restartTaskAtHalf;
    this.root = root;
    this.runDir = runDir;
    this.records = records;
    this.commitIntervalMs = commitIntervalMs;
    this.heap = heap;
  }

  private static final String USAGE =
      """
      e2e/benchmark-fanout.sh [--records 500000] [--tables 1,10,200,1000] [--tasks 1,2]
          [--formats iceberg,paimon|none] [--commit-interval-ms 10000] [--heap 1g]
          [--apache-tables 200 [--apache-tasks 1]] [--restart-task-at-half true] [--run-dir DIR]
      A subset, for example: --tables 200 --tasks 1 --formats paimon""";

  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      if (!args[i].startsWith("--") || i + 1 >= args.length || args[i].equals("--help")) {
        System.err.println(USAGE);
        System.exit(args[i].equals("--help") ? 0 : 2);
      }
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
            o.getOrDefault("heap", "1g"),
            Boolean.parseBoolean(o.getOrDefault("restart-task-at-half", "false")));
    List<String> formats =
        Arrays.stream(o.getOrDefault("formats", "iceberg,paimon").split(","))
            .map(String::trim)
            .filter(f -> !f.isEmpty() && !f.equals("none"))
            .toList();
    for (String f : formats) {
      if (!f.equals("iceberg") && !f.equals("paimon")) {
        throw new IllegalArgumentException("--formats takes iceberg, paimon or none, not " + f);
      }
    }
    System.out.println(bench.settingsLine());
    if (!formats.isEmpty()) {
      bench.run(
          ints(o.getOrDefault("tables", "1,10,200,1000")),
          ints(o.getOrDefault("tasks", "1,2")),
          formats);
    }
    if (o.containsKey("apache-tables")) {
      bench.runApache(ints(o.get("apache-tables")), ints(o.getOrDefault("apache-tasks", "1")));
    }
    System.out.println();
    System.out.printf(
        "Fan-out: %,d records per run, round-robin over the tables, worker heap %s%n",
        bench.records, bench.heap);
    bench.recordSizes.forEach(
        (tables, size) -> System.out.printf("Records of the %d-table topic: %s%n", tables, size));
    System.out.println(bench.settingsLine());
    SinkBenchmark.printTable(bench.results);
    if (!bench.failures.isEmpty()) {
      System.out.println();
      System.out.println("Failed runs:");
      bench.failures.forEach(f -> System.out.println("- " + f));
      System.exit(1);
    }
  }

  /**
   * The settings a user would not have written: ours get only commit.interval.ms (besides what they
   * need to run: catalog, route, auto-create, the primary key of a Paimon table, a control topic
   * per run); the Apache sink the same interval and earliest for its control topic's consumer.
   */
  private String settingsLine() {
    String apache =
        " (the Apache sink: iceberg.control.commit.interval-ms="
            + commitIntervalMs
            + ", iceberg.kafka.auto.offset.reset=earliest)";
    return commitIntervalMs.equals(DEFAULT_COMMIT_INTERVAL_MS)
        ? "non-default: none, commit.interval.ms=" + commitIntervalMs + " is the default" + apache
        : "non-default: commit.interval.ms=" + commitIntervalMs + apache;
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
      for (int tables : tableCounts) {
        produce(stack, tables);
      }
      stack.worker().close();
      for (int tables : tableCounts) {
        for (int tasks : taskCounts) {
          drainApache(stack, tables, tasks);
        }
      }
    }
  }

  private void drainApache(LocalStack stack, int tables, int tasks) throws Exception {
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
    c.put("iceberg.kafka.auto.offset.reset", "earliest");
    c.put("iceberg.control.topic", "ctl-" + name);
    showConfig("Apache Iceberg sink", c);
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
              tasks);
      long files =
          probes.stream()
              .mapToLong(
                  p -> Long.parseLong(p.currentSummary().getOrDefault("total-data-files", "0")))
              .sum();
      row.put("files/table/commit (mean/max)", "n/a");
      row.put("commit rounds", "n/a");
      row.put("round ms (mean/max)", "n/a");
      row.put("rounds past timeout", "n/a");
      row.put("max wait for tasks ms", "n/a");
      row.put("data files", Long.toString(files));
      stack.connect().delete(name);
      results.add(row);
      System.out.println(row);
    } catch (DrainFailed e) {
      failures.add(e.getMessage());
      System.out.println("FAILED: " + e.getMessage());
      stack.connect().delete(name);
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
      for (int tables : tableCounts) {
        produce(stack, tables);
      }
      stack.worker().close();
      for (String format : formats) {
        for (int tables : tableCounts) {
          for (int tasks : taskCounts) {
            drain(stack, format, tables, tasks);
          }
        }
      }
    }
  }

  private static String topic(int tables) {
    return "fanout-" + tables;
  }

  /**
   * Produces the records for {@code tables} tables into their own topic: {@link BenchRecords} with
   * the table {@code fanout.t<id % tables>}, the same seed for every topic.
   */
  private void produce(LocalStack stack, int tables) {
    stack.createTopic(topic(tables), 4, Map.of());
    BenchRecords source = new BenchRecords();
    long start = System.nanoTime();
    try (JsonRecordProducer producer = stack.producer()) {
      for (long id = 0; id < records; id++) {
        producer.sendRaw(
            topic(tables), null, "row-" + id, source.nextJson(id, "fanout.t" + (id % tables)));
      }
      producer.flush();
    }
    payloadBytes.put(tables, source.payloadBytes());
    String size =
        String.format(
            "%.0f bytes of payload each (%.0f with the schema), 11 leaf columns",
            source.meanPayloadBytes(), source.meanRecordBytes());
    recordSizes.put(tables, size);
    System.out.printf(
        "Produced %,d records for %d tables (%s) in %.1f s%n",
        records, tables, size, (System.nanoTime() - start) / 1e9);
  }

  private void drain(LocalStack stack, String format, int tables, int tasks) throws Exception {
    ConnectWorker worker = stack.worker();
    worker.restart(Duration.ofMinutes(2));
    String name = format + "-" + tables + "-" + tasks + "-" + System.currentTimeMillis() % 100_000;
    Map<String, String> config = config(stack, format, name, tables, tasks);
    showConfig("streamhouse " + format, config);
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
              tasks);
      stack.connect().delete(name);
      Thread.sleep(2000); // the last commit's log lines
      row.putAll(commitFigures(worker.logFile(), name));
      row.put(
          "data files", Long.toString(dataFiles(Path.of(config.get("catalog.bench.warehouse")))));
      results.add(row);
      System.out.println(row);
    } catch (DrainFailed e) {
      stack.connect().delete(name);
      Map<String, String> figures = commitFigures(worker.logFile(), name);
      String failure =
          e.getMessage()
              + " (commit rounds: "
              + figures.get("commit rounds")
              + ", past the commit timeout: "
              + figures.get("rounds past timeout")
              + ", max wait for the tasks: "
              + figures.get("max wait for tasks ms")
              + " ms)";
      failures.add(failure);
      System.out.println("FAILED: " + failure);
    } finally {
      worker.close();
      SinkBenchmark.keepProfile(worker, name); // with STREAMHOUSE_BENCH_JFR set
    }
  }

  /** Prints a sink's connector config once, so that the output shows what each run was given. */
  private void showConfig(String sink, Map<String, String> config) {
    if (configsShown.add(sink)) {
      System.out.println(
          "Config of "
              + sink
              + " (names vary per run): "
              + new java.util.TreeMap<>(config).toString().replace(runDir.toString(), "<run-dir>"));
    }
  }

  /** A drain that did not finish: a stall, the overall timeout or a failed connector or task. */
  private static final class DrainFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DrainFailed(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Puts {@code config} and polls every {@code pollMs} until {@code done} reaches the record count,
   * watching the worker's heap over JMX; the columns every run has, up to its peak RSS. Throws
   * {@link DrainFailed} when the connector or a task failed, when nothing new was durable for
   * {@link #STALL_TIMEOUT}, or after {@link #DRAIN_TIMEOUT}.
   */
  private Map<String, String> timedDrain(
      LocalStack stack,
      String name,
      Map<String, String> config,
      LongSupplier done,
      long pollMs,
      String format,
      int tables,
      int tasks)
      throws Exception {
    ConnectWorker worker = stack.worker();
    long peakHeap = 0;
    long peakLive = 0;
    try (WorkerJmx jmx = new WorkerJmx(worker.process().pid())) {
      long start = System.nanoTime();
      stack.connect().putConfig(name, config);
      long drained = 0;
      long progressAt = start;
      long quarterAt = -1;
      long quarterRecords = 0;
      boolean restarted = false;
      while (drained < records) {
        try {
          stack.connect().requireNotFailed(name);
        } catch (IllegalStateException e) {
          throw new DrainFailed(
              name + ": " + e.getMessage() + "; " + drained + " of " + records + " drained", e);
        }
        long now = System.nanoTime();
        if (now - start > DRAIN_TIMEOUT.toNanos()) {
          throw new DrainFailed(
              String.format(
                  "%s did not drain %,d records in %s (%,d drained); see %s",
                  name, records, DRAIN_TIMEOUT, drained, worker.logFile()),
              null);
        }
        if (now - progressAt > STALL_TIMEOUT.toNanos()) {
          throw new DrainFailed(
              String.format(
                  "%s committed no new records for %s: %,d of %,d drained after %.0f s; see %s",
                  name, STALL_TIMEOUT, drained, records, (now - start) / 1e9, worker.logFile()),
              null);
        }
        Thread.sleep(pollMs); // polling interval of a measurement loop, not synchronization
        peakHeap = Math.max(peakHeap, jmx.heapUsed());
        peakLive = Math.max(peakLive, jmx.heapAfterGc());
        long durable = done.getAsLong();
        if (durable > drained) {
          drained = durable;
          progressAt = System.nanoTime();
          if (quarterAt < 0 && drained >= records / 4) {
            quarterAt = progressAt;
            quarterRecords = drained;
          }
          if (restartTaskAtHalf && tasks > 1 && !restarted && drained >= records / 2) {
            // A rebalance in mid-stream: the tasks hand over what they hold (hand-overs column).
            stack.connect().restartTask(name, tasks - 1);
            restarted = true;
          }
        }
      }
      long end = System.nanoTime();
      double seconds = (end - start) / 1e9;
      // Once a quarter is durable the tables exist and the JVM is warm: the rate of the rest.
      double steadySeconds = (end - quarterAt) / 1e9;
      Map<String, String> row = new LinkedHashMap<>();
      row.put("format", format);
      row.put("tables", Integer.toString(tables));
      row.put("tasks", Integer.toString(tasks));
      row.put("heap", heap);
      row.put("seconds", String.format("%.1f", seconds));
      row.put("records/s", String.format("%,.0f", records / seconds));
      row.put(
          "steady records/s",
          quarterRecords < records && steadySeconds > 0
              ? String.format("%,.0f", (records - quarterRecords) / steadySeconds)
              : "n/a");
      row.put("MB/s", String.format("%.1f", payloadBytes.get(tables) / seconds / 1e6));
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
      c.put("route.r.primary-key", "id"); // a primary-key table, the default buckets (1 here)
    } else {
      c.put("catalog.bench.type", "jdbc");
      c.put("catalog.bench.uri", "jdbc:sqlite:" + warehouse.resolve("catalog.db"));
    }
    c.put("routes", "r");
    c.put("route.r.topics", topic(tables));
    c.put("route.r.table.field", "table");
    c.put("route.r.table.allow-regex", "fanout_t[0-9]+");
    c.put("route.r.auto-create", "true");
    if (!commitIntervalMs.equals(DEFAULT_COMMIT_INTERVAL_MS)) {
      c.put("commit.interval.ms", commitIntervalMs);
    }
    // Not a tuning: one control topic per run keeps a run from reading the events of the last.
    c.put("control.topic", "ctl-" + name);
    return c;
  }

  /**
   * From the worker log: files per table per commit (mean and max), commit round durations (mean
   * and max), the rounds that committed without every report after the commit timeout, and the
   * longest wait of a round for the tasks' reports.
   */
  static Map<String, String> commitFigures(Path log, String connector) throws Exception {
    return commitFigures(Files.readAllLines(log), connector);
  }

  static Map<String, String> commitFigures(List<String> log, String connector) {
    long tableCommits = 0;
    long files = 0;
    long maxFiles = 0;
    long rounds = 0;
    long roundMs = 0;
    long maxRoundMs = 0;
    long maxWaitMs = 0;
    long timedOut = 0;
    long maxAnswerMs = -1;
    long handOvers = 0;
    long maxHandOverMs = -1;
    for (String line : log) {
      Matcher a = ANSWERED.matcher(line);
      if (a.find() && a.group(1).equals(connector)) {
        maxAnswerMs = Math.max(maxAnswerMs, Long.parseLong(a.group(2)));
      }
      Matcher h = HANDED_OVER.matcher(line);
      if (h.find() && h.group(1).equals(connector) && Long.parseLong(h.group(2)) > 0) {
        handOvers++;
        maxHandOverMs = Math.max(maxHandOverMs, Long.parseLong(h.group(3)));
      }
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
        maxWaitMs = Math.max(maxWaitMs, Long.parseLong(r.group(4)));
      }
      Matcher w = TIMED_OUT.matcher(line);
      if (w.find() && w.group(1).equals(connector)) {
        timedOut++;
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
    figures.put("rounds past timeout", Long.toString(timedOut));
    figures.put("max wait for tasks ms", rounds == 0 ? "n/a" : Long.toString(maxWaitMs));
    figures.put("max task answer ms", maxAnswerMs < 0 ? "n/a" : Long.toString(maxAnswerMs));
    figures.put(
        "hand-overs (max ms)",
        handOvers == 0 ? "0" : String.format("%d (%d)", handOvers, maxHandOverMs));
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
