package io.streamhouse.e2e.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line of {@link FanoutBenchmark}: {@code --name value} pairs, and the flag {@code
 * --atomic}. The lists of table and task counts stay as given until {@link #ints} reads them, when
 * their runs start.
 *
 * @param runDir this run's folder, {@code fanout-<millis>} under {@code --run-dir}
 * @param apacheTables {@code --apache-tables}, or null for no run of the Apache sink
 * @param catalog our connector's Iceberg catalog: {@code jdbc} (SQLite per run) or {@code nessie}
 *     (one Nessie server for the whole benchmark)
 * @param atomic {@code commit.atomic} on the Nessie catalog: a round in one transaction
 */
record FanoutOptions(
    Path root,
    Path runDir,
    int records,
    String commitIntervalMs,
    String heap,
    boolean restartTaskAtHalf,
    List<String> formats,
    String tables,
    String tasks,
    String apacheTables,
    String apacheTasks,
    Map<String, String> set,
    String catalog,
    boolean atomic) {

  static final String JDBC = "jdbc";
  static final String NESSIE = "nessie";

  private static final String USAGE =
      """
      e2e/benchmark-fanout.sh [--records 500000] [--tables 1,10,200,1000] [--tasks 1,2]
          [--formats iceberg,paimon|none] [--commit-interval-ms 10000] [--heap 1g]
          [--apache-tables 200 [--apache-tasks 1]] [--restart-task-at-half true] [--run-dir DIR]
          [--set.<key> <value> ...] (a key of our connector, named beside the figures)
          [--catalog jdbc|nessie [--atomic]] (our connector's Iceberg catalog: jdbc, SQLite per
          run (the default), or nessie, one Nessie 0.99 server (Iceberg REST, in memory, files in
          an S3-compatible store; needs Java 21+) for the whole benchmark, with commit.atomic
          false, or true with --atomic: a round's tables in one transaction. Iceberg only.)
      A subset, for example: --tables 200 --tasks 1 --formats paimon
      Per-table against atomic commits, same catalog and store:
          --formats iceberg --catalog nessie, then the same with --atomic""";

  /**
   * Reads the command line; prints the usage and exits on {@code --help} or a malformed one. Throws
   * IllegalArgumentException for values that do not go together.
   */
  static FanoutOptions parse(String[] args) {
    Map<String, String> o = new HashMap<>();
    int i = 0;
    while (i < args.length) {
      if (args[i].equals("--atomic")) {
        // A flag: alone, or with true/false like --restart-task-at-half.
        boolean valued = i + 1 < args.length && args[i + 1].matches("true|false");
        o.put("atomic", valued ? args[i + 1] : "true");
        i += valued ? 2 : 1;
        continue;
      }
      if (!args[i].startsWith("--") || i + 1 >= args.length || args[i].equals("--help")) {
        System.err.println(USAGE);
        System.exit(args[i].equals("--help") ? 0 : 2);
      }
      o.put(args[i].substring(2), args[i + 1]);
      i += 2;
    }
    Path root = Path.of(o.getOrDefault("repo-root", ".")).toAbsolutePath().normalize();
    Path runDir =
        Path.of(o.getOrDefault("run-dir", root.resolve("e2e/target/bench").toString()))
            .resolve("fanout-" + System.currentTimeMillis());
    int records = Integer.parseInt(o.getOrDefault("records", "500000"));
    String commitIntervalMs = o.getOrDefault("commit-interval-ms", "10000");
    String heap = o.getOrDefault("heap", "1g");
    boolean restartTaskAtHalf =
        Boolean.parseBoolean(o.getOrDefault("restart-task-at-half", "false"));
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
    String catalog = o.getOrDefault("catalog", JDBC);
    boolean atomic = Boolean.parseBoolean(o.getOrDefault("atomic", "false"));
    if (!catalog.equals(JDBC) && !catalog.equals(NESSIE)) {
      throw new IllegalArgumentException("--catalog takes jdbc or nessie, not " + catalog);
    }
    if (atomic && !catalog.equals(NESSIE)) {
      throw new IllegalArgumentException(
          "--atomic needs --catalog nessie: commit.atomic needs an Iceberg REST catalog");
    }
    if (catalog.equals(NESSIE) && formats.contains("paimon")) {
      throw new IllegalArgumentException(
          "--catalog nessie is an Iceberg catalog: use --formats iceberg");
    }
    return new FanoutOptions(
        root,
        runDir,
        records,
        commitIntervalMs,
        heap,
        restartTaskAtHalf,
        formats,
        o.getOrDefault("tables", "1,10,200,1000"),
        o.getOrDefault("tasks", "1,2"),
        o.get("apache-tables"),
        o.getOrDefault("apache-tasks", "1"),
        set(o),
        catalog,
        atomic);
  }

  private static Map<String, String> set(Map<String, String> options) {
    Map<String, String> set = new HashMap<>();
    options.forEach(
        (k, v) -> {
          if (k.startsWith("set.")) {
            set.put(k.substring(4), v);
          }
        });
    return set;
  }

  /** A comma-separated list of counts. */
  static List<Integer> ints(String list) {
    return Arrays.stream(list.split(",")).map(String::trim).map(Integer::parseInt).toList();
  }
}
