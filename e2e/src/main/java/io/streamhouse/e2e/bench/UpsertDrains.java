package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.ConnectWorker;
import io.streamhouse.e2e.IcebergTables;
import io.streamhouse.e2e.JsonRecordProducer;
import io.streamhouse.e2e.LocalStack;
import io.streamhouse.e2e.PaimonTables;
import io.streamhouse.e2e.SampleCustomers;
import java.io.IOException;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The drains of {@link UpsertBenchmark}: each drains the keyed topic into a fresh primary-key table
 * (Iceberg or Paimon) with our sink and a number of tasks, in a fresh worker JVM that is stopped
 * after, and ends when the table's watermarks reach the end of the topic.
 */
final class UpsertDrains {
  /** The keyed topic every drain reads. */
  static final String TOPIC = "upserts";

  /** The topic of the steady stream, produced while its connector runs. */
  static final String STEADY_TOPIC = "upserts-steady";

  /** The table of every drain, each in a warehouse of its own. */
  static final String TABLE = "bench.upserts";

  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(20);

  private final UpsertBenchmarkOptions options;
  private final long records;
  private final Set<String> configsShown = new HashSet<>();
  private int drains;

  /**
   * One finished drain.
   *
   * @param warehouse the Iceberg warehouse (a file: URI) or the Paimon warehouse (a path)
   * @param probeRows rows of new keys added after the drain to make the tasks read their key
   *     indexes again: the table holds the changes' live keys and these
   * @param row its figures, the columns of the drains' table
   */
  record Drain(
      String format,
      int tasks,
      String connector,
      String warehouse,
      double upsertsPerSecond,
      int probeRows,
      Map<String, String> row) {}

  UpsertDrains(UpsertBenchmarkOptions options, long records) {
    this.options = options;
    this.records = records;
  }

  /** The label of a format's table in the tables: the table kind and its layout. */
  String label(String format) {
    if (format.equals("paimon")) {
      return "Paimon PK (4 buckets)";
    }
    String layout =
        options.icebergPartitionBy().isBlank() ? "unpartitioned" : options.icebergPartitionBy();
    return "Iceberg PK (v2, " + layout + ")";
  }

  /** Drains the topic into a fresh {@code format} table with {@code tasks} tasks. */
  Drain drain(LocalStack stack, String format, int tasks) throws Exception {
    ConnectWorker worker = stack.worker();
    worker.restart(Duration.ofMinutes(2)); // a fresh JVM: its peaks are this drain's alone
    String name = format + "-" + tasks + "-" + (++drains); // a fresh table and control topic
    Path dir = Files.createDirectories(options.runDir().resolve("warehouse-" + name));
    String warehouse = format.equals("iceberg") ? dir.toUri().toString() : dir.toString();
    String probeTopic = "probe-" + name;
    boolean probe = format.equals("iceberg");
    if (probe) {
      stack.createTopic(probeTopic, options.partitions(), Map.of());
    }
    Map<String, String> config =
        config(stack, format, tasks, name, warehouse, probe ? TOPIC + "," + probeTopic : TOPIC);
    if (configsShown.add(format)) {
      System.out.println(
          "Config of "
              + label(format)
              + " (names vary per run): "
              + new TreeMap<>(config).toString().replace(options.runDir().toString(), "<run-dir>"));
    }
    Map<String, String> row = new LinkedHashMap<>();
    double seconds;
    try {
      long start = System.nanoTime();
      stack.connect().putConfig(name, config);
      awaitCommitted(stack, worker, format, name, warehouse, dir, records, start);
      seconds = (System.nanoTime() - start) / 1e9;
      row.put("table", label(format));
      row.put("tasks", Integer.toString(tasks));
      row.put("seconds", String.format("%.1f", seconds));
      row.put("upserts/s", String.format("%,.0f", records / seconds));
      row.put("peak heap MB", "n/a"); // read from the GC log once the JVM exited
      row.put("peak RSS MB", String.format("%.0f", worker.peakRssBytes() / 1e6));
      row.put(
          "key index read",
          probe
              ? readKeyIndexesAgain(stack, worker, name, tasks, warehouse, dir, probeTopic, start)
              : "n/a");
      stopAndReadLog(stack, worker, name, row);
    } finally {
      closeWorker(worker, name);
    }
    afterExit(worker, format, warehouse, name, row);
    return new Drain(
        format, tasks, name, warehouse, records / seconds, probe ? options.partitions() : 0, row);
  }

  /** The worker log from byte {@code offset} on. */
  private static String logSince(ConnectWorker worker, long offset) throws IOException {
    String log = Files.readString(worker.logFile());
    return log.substring((int) Math.min(offset, log.length()));
  }

  /**
   * The time a task takes to read the key index of the drained table, as after a start or a
   * rebalance: restarts the connector's tasks, sends one upsert of a new key into each partition of
   * {@code probeTopic} (routed to the same table), so that the tasks that take them in open their
   * writers (one task may hold every partition until the group settles), and reads the writers'
   * "Read the key index" lines. Adds one live row per partition.
   */
  private String readKeyIndexesAgain(
      LocalStack stack,
      ConnectWorker worker,
      String name,
      int tasks,
      String warehouse,
      Path dir,
      String probeTopic,
      long start)
      throws Exception {
    long logStart = Files.size(worker.logFile());
    stack.connect().restart(name, true, false);
    // The restart is asynchronous: probes taken in by a task not yet restarted find its writer
    // open and no index is read. Once every task has started again, each opens its writer anew.
    Pattern started = Pattern.compile("\\[" + Pattern.quote(name) + "\\|task-\\d+\\] Started ");
    long waitStart = System.nanoTime();
    while (started.matcher(logSince(worker, logStart)).results().count() < tasks) {
      if (System.nanoTime() - waitStart > Duration.ofMinutes(2).toNanos()) {
        throw new IllegalStateException(
            name + ": its tasks did not start again within 2 minutes; see " + worker.logFile());
      }
      Thread.sleep(200); // polling interval of a measurement loop, not synchronization
    }
    try (JsonRecordProducer producer = stack.producer()) {
      BenchRecords values = new BenchRecords(UpsertChanges.SEED + 1);
      for (int p = 0; p < options.partitions(); p++) {
        long id = options.keys() + 1L + p; // a key the changes never touch
        producer.sendRaw(
            probeTopic, p, SampleCustomers.key(id), values.nextJson(id, UpsertChanges.TABLE_FIELD));
      }
      producer.flush();
    }
    awaitCommitted(
        stack, worker, "iceberg", name, warehouse, dir, records + options.partitions(), start);
    List<String> reads = new ArrayList<>();
    Matcher m =
        Pattern.compile(
                "Read the key index of \\S+ at snapshot -?\\d+: (\\d+) keys in (\\d+) data"
                    + " files \\((\\d+) KB\\) in (\\d+) ms")
            .matcher(logSince(worker, logStart));
    while (m.find()) {
      reads.add(
          String.format(
              "%,d keys, %s files, %,d KB: %,d ms",
              Long.parseLong(m.group(1)),
              m.group(2),
              Long.parseLong(m.group(3)),
              Long.parseLong(m.group(4))));
    }
    return reads.isEmpty() ? "none logged" : String.join("; ", reads);
  }

  /**
   * The steady stream: the same changes cut into {@code bursts} parts, produced into a fresh topic
   * while a connector with {@code tasks} tasks drains it into a fresh Iceberg table, each part
   * produced once the one before is committed, so that the table takes at least {@code bursts}
   * commits of the connector, with whatever maintenance the connector runs at its defaults in
   * between (as a CDC stream at a steady rate makes them). Returns the run with {@code liveKeys}.
   */
  SteadyRun steady(LocalStack stack, int tasks, int bursts) throws Exception {
    stack.createTopic(STEADY_TOPIC, options.partitions(), Map.of());
    ConnectWorker worker = stack.worker();
    worker.restart(Duration.ofMinutes(2));
    String name = "iceberg-steady-" + tasks + "-" + (++drains);
    Path dir = Files.createDirectories(options.runDir().resolve("warehouse-" + name));
    String warehouse = dir.toUri().toString();
    Map<String, String> config = config(stack, "iceberg", tasks, name, warehouse, STEADY_TOPIC);
    Map<String, String> row = new LinkedHashMap<>();
    String label = label("iceberg") + ", " + bursts + " bursts";
    int liveKeys;
    double seconds;
    try (UpsertChanges.Stream stream =
        new UpsertChanges.Stream(stack, STEADY_TOPIC, options.keys())) {
      long start = System.nanoTime();
      stack.connect().putConfig(name, config);
      long produced = 0;
      for (int b = 0; b < bursts; b++) {
        int part = (int) ((long) options.changes() * (b + 1) / bursts - produced);
        stream.produce(part);
        produced += part;
        awaitCommitted(stack, worker, "iceberg", name, warehouse, dir, produced, start);
      }
      seconds = (System.nanoTime() - start) / 1e9;
      liveKeys = stream.liveKeys();
      row.put("table", label);
      row.put("tasks", Integer.toString(tasks));
      row.put("seconds", String.format("%.1f", seconds));
      row.put("changes/burst", String.format("%,d", options.changes() / bursts));
      stopAndReadLog(stack, worker, name, row);
    } finally {
      closeWorker(worker, name);
    }
    afterExit(worker, "iceberg", warehouse, name, row);
    return new SteadyRun(
        new Drain("iceberg", tasks, name, warehouse, options.changes() / seconds, 0, row),
        label,
        liveKeys);
  }

  /**
   * Stops connector {@code name} and puts its commit latency and rejected batches into {@code row}.
   */
  private static void stopAndReadLog(
      LocalStack stack, ConnectWorker worker, String name, Map<String, String> row)
      throws Exception {
    stack.connect().delete(name);
    // The coordinator logs a commit after it is visible: read the log once the tasks stopped.
    Thread.sleep(2000);
    row.put("commit latency ms (avg/max)", CommitLogs.commitLatency(worker.logFile(), name));
    row.put("rejected keyed batches", Long.toString(rejectedKeyedBatches(worker, name)));
  }

  /**
   * An idle worker would take CPU from the next drain and the reads; its Java Flight Recorder
   * profile (written only with STREAMHOUSE_BENCH_PROFILE set) is renamed after the connector it
   * ran.
   */
  private static void closeWorker(ConnectWorker worker, String name) throws IOException {
    worker.close();
    BenchWorkers.keepProfile(worker, name);
  }

  /**
   * After the worker JVM exited (its GC log is complete): the peak heap, and for Iceberg the files
   * per commit from the table's snapshots, into {@code row}, which is printed.
   */
  private static void afterExit(
      ConnectWorker worker, String format, String warehouse, String name, Map<String, String> row)
      throws Exception {
    row.put(
        "peak heap MB", GcLogs.peakHeapMb(worker.logFile().getParent(), worker.process().pid()));
    if (format.equals("iceberg")) {
      try (IcebergTables tables = IcebergTables.hadoop("bench", warehouse)) {
        row.putAll(IcebergCommitFiles.columns(tables.table(TABLE), name));
      }
    } else {
      row.putAll(IcebergCommitFiles.notApplicable());
    }
    System.out.println(row);
  }

  /** A finished steady stream: its drain, its label, the rows its table must hold. */
  record SteadyRun(Drain drain, String label, int liveKeys) {}

  /**
   * Waits until the table's watermarks of connector {@code name} sum to {@code target} records;
   * fails if the connector fails or the drain passes its timeout since {@code start}.
   */
  private void awaitCommitted(
      LocalStack stack,
      ConnectWorker worker,
      String format,
      String name,
      String warehouse,
      Path dir,
      long target,
      long start)
      throws Exception {
    HadoopTableProbe probe =
        format.equals("iceberg") ? new HadoopTableProbe(warehouse, TABLE) : null;
    try (PaimonTables paimon = format.equals("paimon") ? PaimonTables.filesystem(dir) : null) {
      long done = 0;
      while (done < target) {
        stack.connect().requireNotFailed(name);
        if (System.nanoTime() - start > DRAIN_TIMEOUT.toNanos()) {
          throw new IllegalStateException(
              name
                  + " did not drain "
                  + target
                  + " records in "
                  + DRAIN_TIMEOUT
                  + " ("
                  + done
                  + " so far); see "
                  + worker.logFile());
        }
        Thread.sleep(200); // polling interval of a measurement loop, not synchronization
        // A compaction's replace snapshot carries no watermarks: the most seen so far stands.
        done = Math.max(done, probe != null ? icebergDone(probe, name) : paimonDone(paimon, name));
      }
    }
  }

  private static long icebergDone(HadoopTableProbe probe, String connector) {
    return DurableRecords.watermarkSum(probe, connector);
  }

  private static long paimonDone(PaimonTables paimon, String connector) {
    return paimon.exists(TABLE)
        ? paimon.watermarks(TABLE, connector).values().stream().mapToLong(Long::longValue).sum()
        : 0;
  }

  /**
   * The same route for both formats, the catalog apart: a primary key, auto-create, the connector's
   * defaults but the commit interval (and the Iceberg partition spec when one is given).
   */
  private Map<String, String> config(
      LocalStack stack, String format, int tasks, String name, String warehouse, String topic) {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", "io.streamhouse.connect.StreamhouseSinkConnector");
    c.put("topics", topic);
    c.put("tasks.max", Integer.toString(tasks));
    c.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("kafka.bootstrap.servers", stack.bootstrapServers());
    c.put("catalogs", "lake");
    if (format.equals("paimon")) {
      c.put("catalog.lake.format", "paimon");
      c.put("catalog.lake.type", "filesystem");
    } else {
      c.put("catalog.lake.type", "hadoop");
    }
    c.put("catalog.lake.warehouse", warehouse);
    c.put("routes", "upserts");
    c.put("route.upserts.topics", topic);
    c.put("route.upserts.table", TABLE);
    c.put("route.upserts.primary-key", "id");
    c.put("route.upserts.auto-create", "true");
    if (format.equals("iceberg") && !options.icebergPartitionBy().isBlank()) {
      c.put("route.upserts.partition-by", options.icebergPartitionBy());
    }
    if (format.equals("iceberg") && !options.icebergDeleteRatio().isBlank()) {
      c.put("maintenance.compact.delete-ratio", options.icebergDeleteRatio());
    }
    c.put("control.topic", "ctl-" + name);
    c.put("commit.interval.ms", options.commitIntervalMs());
    return c;
  }

  /** The coordinator's "rejected keyed batch" lines of connector {@code name} in the worker log. */
  private static long rejectedKeyedBatches(ConnectWorker worker, String name) throws Exception {
    String marker = "Connector " + name + ": rejected keyed batch";
    try (var lines = Files.lines(worker.logFile())) {
      return lines.filter(l -> l.contains(marker)).count();
    }
  }
}
