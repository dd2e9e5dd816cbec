package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.LocalStack;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Upserts into Iceberg and Paimon primary-key tables: one keyed topic of upserts and tombstones (1M
 * changes over 100k keys, 20 % deletes, Connect JSON with schemas for key and value, 4 partitions;
 * {@link UpsertChanges}) drained by our sink into a fresh Iceberg primary-key table (format v2,
 * unpartitioned unless {@code --iceberg-partition-by}) and a fresh Paimon primary-key table (4
 * buckets, the default) with each task count, each drain in a fresh worker JVM ({@link
 * UpsertDrains}). Prints upserts/s, peak heap, commit latency and, for Iceberg, the data and delete
 * files per commit from the snapshots; then the time to read each Iceberg table with Iceberg's
 * generic reader next to a fully compacted copy of it ({@link IcebergReadCost}); and the Iceberg
 * rate as a share of the Paimon rate. Then the steady stream ({@link UpsertDrains#steady}): the
 * same changes into a fresh Iceberg table in 100 bursts, each committed before the next, with the
 * connector's own maintenance at its defaults, and the table read whole after the last commit.
 *
 * <pre>
 * e2e/benchmark-upserts.sh [--changes 1000000] [--keys 100000] [--tasks 1,2]
 *     [--formats iceberg,paimon] [--commit-interval-ms 2000] [--partitions 4]
 *     [--iceberg-partition-by bucket(16,id)] [--reads 3] [--iceberg-delete-ratio 0.3]
 *     [--steady-commits 100]
 * </pre>
 */
public final class UpsertBenchmark {
  /** The goal of issue 24: the Iceberg primary-key rate at least this share of Paimon's. */
  private static final double RATE_GOAL = 0.70;

  private final UpsertBenchmarkOptions options;

  private UpsertBenchmark(UpsertBenchmarkOptions options) {
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    new UpsertBenchmark(UpsertBenchmarkOptions.parse(args)).run();
  }

  private void run() throws Exception {
    Path plugins = options.runDir().resolve("plugins");
    BenchPlugins.streamhouse(
        plugins, options.root().resolve("connector/target/plugin-path/streamhouse-connect"));
    List<String> jvm = new ArrayList<>(BenchWorkers.workerFlags("2g"));
    jvm.add(GcLogs.FLAG);
    System.out.printf(
        "Workers: Kafka 4.4.0, %s; non-default: commit.interval.ms=%s, route primary-key=id%s%s%n",
        String.join(" ", jvm),
        options.commitIntervalMs(),
        options.icebergPartitionBy().isBlank()
            ? ""
            : ", Iceberg route partition-by=" + options.icebergPartitionBy(),
        options.icebergDeleteRatio().isBlank()
            ? ""
            : ", Iceberg maintenance.compact.delete-ratio=" + options.icebergDeleteRatio());
    UpsertChanges.Produced produced;
    List<UpsertDrains.Drain> drains = new ArrayList<>();
    UpsertDrains drainer;
    UpsertDrains.SteadyRun steady = null;
    try (LocalStack stack =
        LocalStack.settings()
            .kafkaVersion("4.4.0")
            .runDir(options.runDir().resolve("kafka"))
            .pluginPath(plugins)
            .distributionCache(options.root().resolve("e2e/target/e2e-work/kafka-dists"))
            .mavenCmd(options.root().resolve("mvnw").toString())
            .workerJvmFlags(jvm)
            .start()) {
      produced =
          UpsertChanges.produce(
              stack, UpsertDrains.TOPIC, options.partitions(), options.changes(), options.keys());
      stack.worker().close(); // each drain starts a fresh worker JVM and stops it after
      drainer = new UpsertDrains(options, produced.records());
      // Formats take turns per task count, so that a slower stretch of the shared machine does not
      // fall on one of them.
      for (int tasks : options.taskCounts()) {
        for (String format : options.formats()) {
          drains.add(drainer.drain(stack, format, tasks));
        }
      }
      if (options.steadyCommits() > 0 && options.formats().contains("iceberg")) {
        steady =
            drainer.steady(
                stack,
                options.taskCounts().get(options.taskCounts().size() - 1),
                options.steadyCommits());
      }
    }
    List<Map<String, String>> reads = new ArrayList<>();
    for (UpsertDrains.Drain d : drains) {
      if (d.format().equals("iceberg")) {
        reads.add(
            IcebergReadCost.measure(
                d, drainer.label("iceberg"), options.reads(), produced.liveKeys() + d.probeRows()));
      }
    }
    Map<String, String> steadyRead = null;
    if (steady != null) {
      steadyRead =
          IcebergReadCost.measure(
              steady.drain(), steady.label(), options.reads(), steady.liveKeys());
    }
    System.out.println();
    System.out.printf(
        "%,d changes over %,d keys (20 %% deletes) = %,d records with tombstones on %d partitions,"
            + " %,d live keys at the end; commit every %s ms%n",
        options.changes(),
        options.keys(),
        produced.records(),
        options.partitions(),
        produced.liveKeys(),
        options.commitIntervalMs());
    MarkdownTable.print(drains.stream().map(UpsertDrains.Drain::row).toList());
    if (!reads.isEmpty()) {
      System.out.println();
      System.out.println(
          "Full reads with IcebergGenerics (every row counted), the keyed table against a fully"
              + " compacted copy of its live rows:");
      MarkdownTable.print(reads);
    }
    if (steady != null) {
      System.out.println();
      System.out.printf(
          "Steady stream: the same changes in %d bursts, each produced once the one before was"
              + " committed, then the table read whole against a compacted copy:%n",
          options.steadyCommits());
      MarkdownTable.print(List.of(steady.drain().row()));
      MarkdownTable.print(List.of(steadyRead));
    }
    System.out.println();
    rateShares(drains).forEach(System.out::println);
  }

  /**
   * Per task count with both formats: the Iceberg rate as a share of the Paimon rate (medians when
   * a count drained more than once).
   */
  private static List<String> rateShares(List<UpsertDrains.Drain> drains) {
    Set<Integer> taskCounts = new LinkedHashSet<>();
    drains.forEach(d -> taskCounts.add(d.tasks()));
    List<String> lines = new ArrayList<>();
    for (int tasks : taskCounts) {
      double iceberg = medianRate(drains, "iceberg", tasks);
      double paimon = medianRate(drains, "paimon", tasks);
      if (iceberg > 0 && paimon > 0) {
        lines.add(
            String.format(
                "%d task%s: Iceberg PK %,.0f upserts/s = %.0f %% of Paimon PK %,.0f (goal: at"
                    + " least %.0f %%)",
                tasks,
                tasks == 1 ? "" : "s",
                iceberg,
                100 * iceberg / paimon,
                paimon,
                100 * RATE_GOAL));
      }
    }
    return lines;
  }

  private static double medianRate(List<UpsertDrains.Drain> drains, String format, int tasks) {
    double[] rates =
        drains.stream()
            .filter(d -> d.format().equals(format) && d.tasks() == tasks)
            .mapToDouble(UpsertDrains.Drain::upsertsPerSecond)
            .toArray();
    if (rates.length == 0) {
      return -1;
    }
    Arrays.sort(rates);
    return rates.length % 2 == 1
        ? rates[rates.length / 2]
        : (rates[rates.length / 2 - 1] + rates[rates.length / 2]) / 2;
  }
}
