package io.streamhouse.e2e.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.e2e.ConnectWorker;
import io.streamhouse.e2e.LocalStack;
import io.streamhouse.e2e.WorkerJmx;
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
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;

/**
 * The drains of {@link SinkBenchmark}: each drains the backlog with one sink in a fresh worker JVM
 * until its last record is durable, prints its row and keeps it, with the {@link
 * CostOverCeiling.Run} the comparisons are made of.
 */
final class SinkDrains {
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(20);

  /** The column of the seconds until the last record of every partition was read. */
  static final String LAST_READ = "last record read s";

  private final Path runDir;
  private final int records;
  private final int partitions;
  private final int warmUpRecords;
  private final List<Map<String, String>> results = new ArrayList<>();
  private final List<CostOverCeiling.Run> runs = new ArrayList<>();
  private final Set<String> configsShown = new HashSet<>();

  SinkDrains(Path runDir, int records, int partitions, int warmUpRecords) {
    this.runDir = runDir;
    this.records = records;
    this.partitions = partitions;
    this.warmUpRecords = warmUpRecords;
  }

  /**
   * The do-nothing sink drains the backlog in a fresh worker, unmeasured: the broker has served a
   * drain before the measured ones.
   */
  void warmUpBroker(LocalStack stack, Map<String, String> config) throws Exception {
    ConnectWorker worker = stack.worker();
    worker.restart(Duration.ofMinutes(2));
    String name = "discard-broker-warm-up";
    long start = System.nanoTime();
    try (Admin admin = stack.admin()) {
      LongSupplier done = start(stack, admin, "discard", name, new HashMap<>(config));
      awaitDurable(stack, "broker warm-up", name, done, records, start, worker, null);
      stack.connect().delete(name);
      System.out.printf(
          "broker warm-up: the do-nothing sink drained the backlog in %.1f s (not measured)%n",
          (System.nanoTime() - start) / 1e9);
    } finally {
      worker.close();
    }
  }

  /**
   * The CPU time the worker JVM took from the connector's start to the drain's end, all its threads
   * (the task threads, the compiler threads, the collector): on 2 cores a drain is bound by the
   * CPU.
   */
  private static final String WORKER_CPU = "worker CPU s";

  /** The CPU time the worker JVM has taken so far, in seconds; -1 where the OS does not say. */
  private static double cpuSeconds(ConnectWorker worker) {
    return ProcessHandle.of(worker.process().pid())
        .flatMap(p -> p.info().totalCpuDuration())
        .map(d -> d.toNanos() / 1e9)
        .orElse(-1.0);
  }

  /** The rows of the drains so far, in their order. */
  List<Map<String, String>> results() {
    return results;
  }

  /** The drains so far, in the order of {@link #results}. */
  List<CostOverCeiling.Run> runs() {
    return runs;
  }

  /**
   * Drains the topic with the sink {@code config} describes ({@code kind}: discard, iceberg for
   * ours or apache) and {@code tasks} tasks, {@code payloadBytes} the payload of the whole backlog.
   */
  void drain(
      LocalStack stack,
      String sink,
      String kind,
      int tasks,
      Map<String, String> config,
      long payloadBytes)
      throws Exception {
    ConnectWorker worker = stack.worker();
    worker.restart(Duration.ofMinutes(2)); // a fresh JVM: its peak memory is this run's alone
    String name = kind + "-" + tasks + "-" + System.currentTimeMillis() % 100_000;
    // one client polls the do-nothing sink's offsets; JMX is attached before the drain starts
    try (Admin admin = stack.admin();
        WorkerJmx jmx = new WorkerJmx(worker.process().pid())) {
      if (warmUpRecords > 0) {
        // A warm-up drain first: the measured one runs on a worker whose sink code is loaded and
        // compiled, as in a worker that has run for a while.
        String warm = name + "-warm";
        long warmStart = System.nanoTime();
        LongSupplier warmDone = start(stack, admin, kind, warm, new HashMap<>(config));
        awaitDurable(
            stack, sink + " (warm-up)", warm, warmDone, warmUpRecords, warmStart, worker, null);
        stopAndDelete(stack, warm);
        System.out.printf(
            "warm-up of %s: %,d records in %.1f s%n",
            sink, warmUpRecords, (System.nanoTime() - warmStart) / 1e9);
      }
      if (configsShown.add(sink)) {
        Map<String, String> shown = new TreeMap<>(config);
        named(kind, name, shown);
        System.out.println(
            "Config of "
                + sink
                + " (names vary per run): "
                + shown.toString().replace(runDir.toString(), "<run-dir>"));
      }
      double cpuAtStart = cpuSeconds(worker);
      long start = System.nanoTime();
      LongSupplier done = start(stack, admin, kind, name, config);
      long[] quarter =
          awaitDurable(
              stack,
              sink,
              name,
              done,
              records,
              start,
              worker,
              new LastRecordRead(jmx::valuesByName, name, SinkBenchmark.TOPIC, partitions));
      long quarterNanos = quarter[0];
      long quarterRecords = quarter[1];
      double readSeconds = quarter[2] < 0 ? -1 : (quarter[2] - start) / 1e9;
      long end = System.nanoTime();
      double cpuAtEnd = cpuSeconds(worker);
      double seconds = (end - start) / 1e9;
      Map<String, String> row = new LinkedHashMap<>();
      row.put("sink", sink);
      row.put("worker", stack.kafkaVersion());
      row.put("tasks", Integer.toString(tasks));
      row.put("seconds", String.format("%.1f", seconds));
      row.put(LAST_READ, readSeconds < 0 ? "n/a" : String.format("%.1f", readSeconds));
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
      row.put(
          WORKER_CPU,
          cpuAtStart < 0 || cpuAtEnd < 0 ? "n/a" : String.format("%.1f", cpuAtEnd - cpuAtStart));
      stack.connect().delete(name);
      // The coordinator logs a commit after the snapshot is visible: read the log once the tasks
      // stopped.
      Thread.sleep(2000);
      row.put("commit latency ms (avg/max)", CommitLogs.commitLatency(worker.logFile(), name));
      results.add(row);
      runs.add(
          new CostOverCeiling.Run(
              sink,
              stack.kafkaVersion(),
              tasks,
              kind.equals("discard"),
              seconds,
              steadyRate,
              readSeconds));
      System.out.println(row);
    } finally {
      // An idle worker would take CPU from the next drain; its Java Flight Recorder profile
      // (written only with STREAMHOUSE_BENCH_PROFILE set) is renamed after the connector it ran, so
      // that the next run keeps its own.
      worker.close();
      BenchWorkers.keepProfile(worker, name);
    }
  }

  /**
   * Names {@code config}'s table and control topic after {@code name}, starts the connector and
   * returns how many of its records are durable.
   */
  private static LongSupplier start(
      LocalStack stack, Admin admin, String kind, String name, Map<String, String> config) {
    String table = named(kind, name, config);
    LongSupplier done =
        switch (kind) {
          case "discard" -> () -> DurableRecords.committed(admin, name);
          case "iceberg" -> {
            HadoopTableProbe probe =
                new HadoopTableProbe(config.get("catalog.bench.warehouse"), table);
            yield () -> DurableRecords.watermarkSum(probe, name);
          }
          default -> {
            HadoopTableProbe probe =
                new HadoopTableProbe(config.get("iceberg.catalog.warehouse"), table);
            yield () -> DurableRecords.totalRecords(probe);
          }
        };
    if (kind.equals("apache")) {
      stack.createTopic("ctl-" + name, 1, Map.of());
    }
    stack.connect().putConfig(name, config);
    return done;
  }

  /** Puts the table and control topic of connector {@code name} into {@code config}. */
  private static String named(String kind, String name, Map<String, String> config) {
    String table = "bench." + name.replace('-', '_');
    if (kind.equals("iceberg")) {
      config.put("route.bench.table", table);
      config.put("control.topic", "ctl-" + name);
    }
    if (kind.equals("apache")) {
      config.put("iceberg.tables", table);
      config.put("iceberg.control.topic", "ctl-" + name);
    }
    return table;
  }

  /**
   * Waits until {@code target} records of connector {@code name} are durable; returns when the
   * first quarter of them was (nanos), how many were then, and when {@code read} (if not null)
   * first saw the last record of every partition read (nanos; -1 if never seen).
   */
  private static long[] awaitDurable(
      LocalStack stack,
      String sink,
      String name,
      LongSupplier done,
      long target,
      long start,
      ConnectWorker worker,
      LastRecordRead read)
      throws InterruptedException {
    long last = 0;
    long quarterNanos = -1;
    long quarterRecords = 0;
    long readNanos = -1;
    while (last < target) {
      stack.connect().requireNotFailed(name);
      if (System.nanoTime() - start > DRAIN_TIMEOUT.toNanos()) {
        throw new IllegalStateException(
            sink
                + " did not drain "
                + target
                + " records in "
                + DRAIN_TIMEOUT
                + " ("
                + last
                + " so far); see "
                + worker.logFile());
      }
      Thread.sleep(200); // polling interval of a benchmark measurement loop, not synchronization
      if (read != null && readNanos < 0 && read.allRead()) {
        readNanos = System.nanoTime();
      }
      last = done.getAsLong();
      if (quarterNanos < 0 && last >= target / 4) {
        quarterNanos = System.nanoTime();
        quarterRecords = last;
      }
    }
    return new long[] {quarterNanos, quarterRecords, readNanos};
  }

  /**
   * Stops connector {@code name}, waits until its tasks are gone (they would take CPU), deletes it.
   */
  private static void stopAndDelete(LocalStack stack, String name) throws InterruptedException {
    stack.connect().stop(name);
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (true) {
      JsonNode status = stack.connect().status(name);
      if ("STOPPED".equals(status.path("connector").path("state").asText())
          && status.path("tasks").isEmpty()) {
        break;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Connector " + name + " did not stop: " + status);
      }
      Thread.sleep(100); // polling interval of a benchmark loop, not synchronization
    }
    stack.connect().delete(name);
  }
}
