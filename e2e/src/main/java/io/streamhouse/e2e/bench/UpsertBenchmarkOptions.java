package io.streamhouse.e2e.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line of {@link UpsertBenchmark}: {@code --name value} pairs.
 *
 * @param runDir this run's folder, {@code e2e/target/bench-upserts/run-<millis>}
 * @param taskCounts {@code --tasks}: the drains of each format, in this order (a count given twice
 *     drains twice)
 * @param formats {@code --formats}: iceberg, paimon or both
 * @param icebergPartitionBy {@code --iceberg-partition-by}: the Iceberg route's partition spec,
 *     empty (the default) for an unpartitioned table
 * @param reads {@code --reads}: the full reads of each Iceberg table and of its compacted copy
 * @param icebergDeleteRatio {@code --iceberg-delete-ratio}: {@code
 *     maintenance.compact.delete-ratio} for the Iceberg drains, empty (the default) for the
 *     connector's default
 * @param steadyCommits {@code --steady-commits}: the bursts the same changes are cut into for the
 *     steady stream into an Iceberg table (each committed before the next is produced), read after;
 *     0 skips it
 */
record UpsertBenchmarkOptions(
    Path root,
    Path runDir,
    int changes,
    int keys,
    int partitions,
    String commitIntervalMs,
    List<Integer> taskCounts,
    List<String> formats,
    String icebergPartitionBy,
    int reads,
    String icebergDeleteRatio,
    int steadyCommits) {

  static UpsertBenchmarkOptions parse(String[] args) {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --name value, got " + args[i]);
      }
      o.put(args[i].substring(2), args[++i]);
    }
    Path root = Path.of(o.getOrDefault("repo-root", ".")).toAbsolutePath().normalize();
    List<String> formats = split(o.getOrDefault("formats", "iceberg,paimon"));
    for (String f : formats) {
      if (!f.equals("iceberg") && !f.equals("paimon")) {
        throw new IllegalArgumentException("--formats takes iceberg and paimon, not " + f);
      }
    }
    return new UpsertBenchmarkOptions(
        root,
        root.resolve("e2e/target/bench-upserts/run-" + System.currentTimeMillis()),
        Integer.parseInt(o.getOrDefault("changes", "1000000")),
        Integer.parseInt(o.getOrDefault("keys", "100000")),
        Integer.parseInt(o.getOrDefault("partitions", "4")),
        o.getOrDefault("commit-interval-ms", "2000"),
        split(o.getOrDefault("tasks", "1,2")).stream().map(Integer::parseInt).toList(),
        formats,
        o.getOrDefault("iceberg-partition-by", ""),
        Math.max(1, Integer.parseInt(o.getOrDefault("reads", "3"))),
        o.getOrDefault("iceberg-delete-ratio", ""),
        Math.max(0, Integer.parseInt(o.getOrDefault("steady-commits", "100"))));
  }

  private static List<String> split(String list) {
    return Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }
}
