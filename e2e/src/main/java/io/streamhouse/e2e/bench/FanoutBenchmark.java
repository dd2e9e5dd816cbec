package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.ConnectWorker;
import io.streamhouse.e2e.JsonRecordProducer;
import io.streamhouse.e2e.LocalStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;

/**
 * Fan-out benchmark: one topic whose records ({@link BenchRecords}) name their table in a field,
 * values round-robin over N tables (a whole database's change stream in one topic looks like this),
 * drained by our sink into N auto-created Iceberg or Paimon tables, 1 or 2 tasks, each run in a
 * fresh worker JVM with a fixed heap. The connector gets the settings a user would write and no
 * others but {@code commit.interval.ms} (printed as the one non-default). Prints records/s, MB/s,
 * peak heap and RSS, files per table per commit, commit round durations (with their median and 95th
 * percentile, {@link RoundCommitTimes}), the rounds that passed the commit timeout and the longest
 * wait of a round for the tasks. A run ends when Connect's committed offsets reach the end of the
 * topic: our sink lets Connect commit only offsets durable in every table. It fails when nothing
 * new was committed for 3 minutes. Our Iceberg tables are in a JDBC catalog per run, or in one
 * Nessie server with per-table or round-atomic commits ({@link FanoutCatalog}).
 */
public final class FanoutBenchmark {
  /**
   * The broker's own default, which the test harness sets to 0 to start faster: with it, tasks that
   * start together join their consumer group's first generation together, as on a real cluster,
   * instead of the first one taking every partition and handing them over a second later.
   */
  static final String INITIAL_REBALANCE_DELAY = "group.initial.rebalance.delay.ms";

  static final String BROKER_DEFAULT_INITIAL_REBALANCE_DELAY_MS = "3000";

  private final FanoutOptions options;
  private final FanoutConfigs configs;
  private final FanoutDrain timedDrain;
  private final Path root;
  private final Path runDir;
  private final List<Map<String, String>> results = new ArrayList<>();
  private final List<String> failures = new ArrayList<>();
  private final Map<Integer, Long> payloadBytes = new HashMap<>();
  private final Map<Integer, String> recordSizes = new LinkedHashMap<>();
  private final Set<String> configsShown = new HashSet<>();

  private FanoutBenchmark(FanoutOptions options) {
    this.options = options;
    this.configs = new FanoutConfigs(options.commitIntervalMs(), options.set());
    this.timedDrain =
        new FanoutDrain(options.records(), options.heap(), options.restartTaskAtHalf());
    this.root = options.root();
    this.runDir = options.runDir();
  }

  public static void main(String[] args) throws Exception {
    FanoutOptions options = FanoutOptions.parse(args);
    FanoutBenchmark bench = new FanoutBenchmark(options);
    System.out.println(bench.configs.settingsLine());
    System.out.println(FanoutCatalog.describe(options));
    if (!options.formats().isEmpty()) {
      bench.run(
          FanoutOptions.ints(options.tables()),
          FanoutOptions.ints(options.tasks()),
          options.formats());
    }
    if (options.apacheTables() != null) {
      bench.runApache(
          FanoutOptions.ints(options.apacheTables()), FanoutOptions.ints(options.apacheTasks()));
    }
    System.out.println();
    System.out.printf(
        "Fan-out: %,d records per run, round-robin over the tables, worker heap %s%n",
        options.records(), options.heap());
    bench.recordSizes.forEach(
        (tables, size) -> System.out.printf("Records of the %d-table topic: %s%n", tables, size));
    System.out.println(bench.configs.settingsLine());
    if (!options.formats().isEmpty()) {
      System.out.println(FanoutCatalog.describe(options));
      System.out.println(
          "Round commit ms: a round's transaction on an atomic catalog (its tables staged and"
              + " published), else its longest table commit; round wall ms: the coordinator's"
              + " whole round commit, in both modes");
    }
    MarkdownTable.print(bench.results);
    if (!bench.failures.isEmpty()) {
      System.out.println();
      System.out.println("Failed runs:");
      bench.failures.forEach(f -> System.out.println("- " + f));
      System.exit(1);
    }
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
            .workerJvmFlags(BenchWorkers.workerFlags(options.heap()))
            .brokerConfig(INITIAL_REBALANCE_DELAY, BROKER_DEFAULT_INITIAL_REBALANCE_DELAY_MS)
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
    Map<String, String> c = configs.apache(name, tables, tasks, warehouse);
    showConfig("Apache Iceberg sink", c);
    stack.createTopic("ctl-" + name, 1, Map.of());
    List<HadoopTableProbe> probes = new ArrayList<>();
    for (int t = 0; t < tables; t++) {
      probes.add(new HadoopTableProbe(warehouse.toUri().toString(), "fanout.t" + t));
    }
    try {
      Map<String, String> row =
          timedDrain.run(
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
              payloadBytes.get(tables));
      long files =
          probes.stream()
              .mapToLong(
                  p -> Long.parseLong(p.currentSummary().getOrDefault("total-data-files", "0")))
              .sum();
      row.put("files/table/commit (mean/max)", "n/a");
      row.put("commit rounds", "n/a");
      row.put("round ms (mean/max)", "n/a");
      row.put(RoundCommitTimes.COMMIT_COLUMN, "n/a");
      row.put(RoundCommitTimes.WALL_COLUMN, "n/a");
      row.put("rounds past timeout", "n/a");
      row.put("max wait for tasks ms", "n/a");
      row.put("data files", Long.toString(files));
      stack.connect().delete(name);
      results.add(row);
      System.out.println(row);
    } catch (FanoutDrain.Failed e) {
      failures.add(e.getMessage());
      System.out.println("FAILED: " + e.getMessage());
      stack.connect().delete(name);
    } finally {
      worker.close();
    }
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
                .workerJvmFlags(BenchWorkers.workerFlags(options.heap()))
                .brokerConfig(INITIAL_REBALANCE_DELAY, BROKER_DEFAULT_INITIAL_REBALANCE_DELAY_MS)
                .start();
        FanoutCatalog catalog = FanoutCatalog.start(options)) {
      for (int tables : tableCounts) {
        produce(stack, tables);
      }
      stack.worker().close();
      for (String format : formats) {
        for (int tables : tableCounts) {
          for (int tasks : taskCounts) {
            drain(stack, catalog, format, tables, tasks);
          }
        }
      }
    }
  }

  /**
   * Produces the records for {@code tables} tables into their own topic: {@link BenchRecords} with
   * the table {@code fanout.t<id % tables>}, the same seed for every topic.
   */
  private void produce(LocalStack stack, int tables) {
    stack.createTopic(FanoutConfigs.topic(tables), 4, Map.of());
    BenchRecords source = new BenchRecords();
    long start = System.nanoTime();
    try (JsonRecordProducer producer = stack.producer()) {
      for (long id = 0; id < options.records(); id++) {
        producer.sendRaw(
            FanoutConfigs.topic(tables),
            null,
            "row-" + id,
            source.nextJson(id, "fanout.t" + (id % tables)));
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
        options.records(), tables, size, (System.nanoTime() - start) / 1e9);
  }

  private void drain(LocalStack stack, FanoutCatalog catalog, String format, int tables, int tasks)
      throws Exception {
    ConnectWorker worker = stack.worker();
    worker.restart(Duration.ofMinutes(2));
    String name = format + "-" + tables + "-" + tasks + "-" + System.currentTimeMillis() % 100_000;
    Path warehouse = Files.createDirectories(runDir.resolve("warehouse-" + name));
    Map<String, String> config =
        configs.streamhouse(
            stack, format, name, tables, tasks, warehouse, catalog.icebergKeys(name, warehouse));
    showConfig("streamhouse " + format, config);
    try (Admin admin = stack.admin()) {
      Map<String, String> row =
          timedDrain.run(
              stack,
              name,
              config,
              () -> DurableRecords.committed(admin, name),
              200,
              catalog.label(format),
              tables,
              tasks,
              payloadBytes.get(tables));
      stack.connect().delete(name);
      Thread.sleep(2000); // the last commit's log lines
      Map<String, String> figures = CommitLogs.commitFigures(worker.logFile(), name);
      Map<String, String> times = RoundCommitTimes.figures(worker.logFile(), name);
      figures.forEach(
          (column, value) -> {
            row.put(column, value);
            if (column.equals("round ms (mean/max)")) {
              row.putAll(times); // beside the mean and longest round
            }
          });
      row.put("data files", Long.toString(catalog.dataFiles(name, tables, warehouse)));
      results.add(row);
      System.out.println(row);
    } catch (FanoutDrain.Failed e) {
      stack.connect().delete(name);
      Map<String, String> figures = CommitLogs.commitFigures(worker.logFile(), name);
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
      // Renames the worker's Java Flight Recorder profile, written if STREAMHOUSE_BENCH_PROFILE is
      // set.
      BenchWorkers.keepProfile(worker, name);
    }
  }

  /** Prints a sink's connector config once, so that the output shows what each run was given. */
  private void showConfig(String sink, Map<String, String> config) {
    if (configsShown.add(sink)) {
      System.out.println(
          "Config of "
              + sink
              + " (names vary per run): "
              + new TreeMap<>(config).toString().replace(runDir.toString(), "<run-dir>"));
    }
  }
}
