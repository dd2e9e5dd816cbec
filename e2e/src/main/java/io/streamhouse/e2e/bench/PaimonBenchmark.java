package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.ConnectWorker;
import io.streamhouse.e2e.LocalStack;
import io.streamhouse.e2e.PaimonTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Paimon upsert benchmark: a keyed topic of upserts and tombstones (1M changes over 100k keys, 20 %
 * deletes, Connect JSON with schemas for key and value, 4 partitions; the key a struct of the id,
 * the value the benchmarks' wide record, {@link BenchRecords}, with that id) drained into a Paimon
 * primary-key table by our sink with one and two tasks, each in a fresh worker JVM, next to a plain
 * Paimon writer loop over the same changes (the ceiling: no Kafka, no JSON, no Connect).
 *
 * <pre>e2e/benchmark-paimon.sh [--changes 1000000] [--keys 100000] [--commit-interval-ms 2000]
 * </pre>
 */
public final class PaimonBenchmark {
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(20);
  private static final List<String> JVM = List.of("-Xmx2g", "-XX:+UseG1GC", GcLogs.FLAG);
  private static final long SEED = UpsertChanges.SEED;

  /** The routing field's value of every upsert (the route names its table itself). */
  static final String TABLE = UpsertChanges.TABLE_FIELD;

  private final Path root;
  private final Path runDir;
  private final int changes;
  private final int keys;
  private final String commitIntervalMs;
  private final List<Map<String, String>> results = new ArrayList<>();

  private final List<Integer> taskCounts;
  private int drains;
  private final boolean ceiling;

  private PaimonBenchmark(
      Path root,
      Path runDir,
      int changes,
      int keys,
      String commitIntervalMs,
      List<Integer> taskCounts,
      boolean ceiling) {
    this.taskCounts = taskCounts;
    this.ceiling = ceiling;
    this.root = root;
    this.runDir = runDir;
    this.changes = changes;
    this.keys = keys;
    this.commitIntervalMs = commitIntervalMs;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--skip-ceiling")) {
        o.put("skip-ceiling", "true");
      } else {
        o.put(args[i].substring(2), args[++i]);
      }
    }
    Path root = Path.of(o.getOrDefault("repo-root", ".")).toAbsolutePath().normalize();
    new PaimonBenchmark(
            root,
            root.resolve("e2e/target/bench-paimon/run-" + System.currentTimeMillis()),
            Integer.parseInt(o.getOrDefault("changes", "1000000")),
            Integer.parseInt(o.getOrDefault("keys", "100000")),
            o.getOrDefault("commit-interval-ms", "2000"),
            java.util.Arrays.stream(o.getOrDefault("tasks", "1,2").split(","))
                .map(String::trim)
                .map(Integer::parseInt)
                .toList(),
            !o.containsKey("skip-ceiling"))
        .run();
  }

  private void run() throws Exception {
    Path plugins = runDir.resolve("plugins");
    BenchPlugins.streamhouse(
        plugins, root.resolve("connector/target/plugin-path/streamhouse-connect"));
    long records;
    try (LocalStack stack =
        LocalStack.settings()
            .kafkaVersion("4.4.0")
            .runDir(runDir.resolve("kafka"))
            .pluginPath(plugins)
            .distributionCache(root.resolve("e2e/target/e2e-work/kafka-dists"))
            .mavenCmd(root.resolve("mvnw").toString())
            .workerJvmFlags(JVM)
            .start()) {
      records = produce(stack);
      for (int tasks : taskCounts) {
        drain(stack, tasks, records);
      }
    }
    if (ceiling) {
      loop();
    }
    System.out.printf(
        "%,d changes over %,d keys (20 %% deletes) = %,d records with tombstones; commit every %s ms%n",
        changes, keys, records, commitIntervalMs);
    MarkdownTable.print(results);
  }

  private long produce(LocalStack stack) {
    return UpsertChanges.produce(stack, "upserts", 4, changes, keys).records();
  }

  private void drain(LocalStack stack, int tasks, long records) throws Exception {
    ConnectWorker worker = stack.worker();
    worker.close();
    worker.restart(Duration.ofMinutes(2)); // a fresh JVM: its peaks are this run's alone
    String name = "paimon-" + tasks + "-" + (++drains); // a fresh table and control topic per run
    Path warehouse = Files.createDirectories(runDir.resolve("warehouse-" + name));
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", "io.streamhouse.connect.StreamhouseSinkConnector");
    c.put("topics", "upserts");
    c.put("tasks.max", Integer.toString(tasks));
    c.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("kafka.bootstrap.servers", stack.bootstrapServers());
    c.put("catalogs", "lake");
    c.put("catalog.lake.format", "paimon");
    c.put("catalog.lake.type", "filesystem");
    c.put("catalog.lake.warehouse", warehouse.toString());
    c.put("routes", "upserts");
    c.put("route.upserts.topics", "upserts");
    c.put("route.upserts.table", "bench.upserts");
    c.put("route.upserts.auto-create", "true");
    c.put("control.topic", "ctl-" + name);
    c.put("commit.interval.ms", commitIntervalMs);
    long start = System.nanoTime();
    stack.connect().putConfig(name, c);
    try (PaimonTables tables = PaimonTables.filesystem(warehouse)) {
      long done = 0;
      while (done < records) {
        stack.connect().requireNotFailed(name);
        if (System.nanoTime() - start > DRAIN_TIMEOUT.toNanos()) {
          throw new IllegalStateException(
              name + " did not drain in " + DRAIN_TIMEOUT + "; see " + worker.logFile());
        }
        Thread.sleep(200); // polling interval of a measurement loop, not synchronization
        done =
            tables.exists("bench.upserts")
                ? tables.watermarks("bench.upserts", name).values().stream()
                    .mapToLong(Long::longValue)
                    .sum()
                : 0;
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Map<String, String> row = new LinkedHashMap<>();
    row.put("writer", "streamhouse sink (worker 4.4.0)");
    row.put("tasks", Integer.toString(tasks));
    row.put("seconds", String.format("%.1f", seconds));
    row.put("upserts/s", String.format("%,.0f", records / seconds));
    row.put(
        "peak heap MB", GcLogs.peakHeapMb(worker.logFile().getParent(), worker.process().pid()));
    row.put("peak RSS MB", String.format("%.0f", worker.peakRssBytes() / 1e6));
    stack.connect().delete(name);
    row.put("commit latency ms (avg/max)", CommitLogs.commitLatency(worker.logFile(), name));
    results.add(row);
    System.out.println(row);
  }

  /** The plain Paimon writer loop in its own JVM with the worker's heap settings. */
  private void loop() throws Exception {
    Path dir = Files.createDirectories(runDir.resolve("loop"));
    // As many commits as the one-task sink run made, so both write the same number of snapshots.
    Matcher made =
        Pattern.compile("\\((\\d+) commits\\)")
            .matcher(results.isEmpty() ? "" : results.get(0).get("commit latency ms (avg/max)"));
    int commits = made.find() ? Integer.parseInt(made.group(1)) : 10;
    List<String> cmd =
        new ArrayList<>(
            List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    cmd.addAll(JVM);
    cmd.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            PaimonWriterLoop.class.getName(),
            dir.resolve("warehouse").toString(),
            Integer.toString(changes),
            Integer.toString(keys),
            Long.toString(SEED),
            Integer.toString(commits)));
    Process p =
        new ProcessBuilder(cmd)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("loop.log").toFile())
            .start();
    long pid = p.pid();
    if (p.waitFor() != 0) {
      throw new IllegalStateException(
          "the Paimon writer loop failed; see " + dir.resolve("loop.log"));
    }
    Matcher m =
        Pattern.compile("RESULT seconds=([\\d.]+)")
            .matcher(Files.readString(dir.resolve("loop.log")));
    if (!m.find()) {
      throw new IllegalStateException("no result in " + dir.resolve("loop.log"));
    }
    double seconds = Double.parseDouble(m.group(1));
    Map<String, String> row = new LinkedHashMap<>();
    row.put("writer", "plain Paimon writer loop (ceiling)");
    row.put("tasks", "1");
    row.put("seconds", String.format("%.1f", seconds));
    row.put("upserts/s", String.format("%,.0f", changes / seconds));
    row.put("peak heap MB", GcLogs.peakHeapMb(dir, pid));
    row.put("peak RSS MB", "n/a");
    row.put("commit latency ms (avg/max)", commits + " commits");
    results.add(row);
    System.out.println(row);
  }
}
