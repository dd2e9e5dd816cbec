package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.IcebergTables;
import io.streamhouse.e2e.NessieServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The Iceberg catalog of our connector in {@link FanoutBenchmark} ({@code --catalog}): by default a
 * JDBC catalog in a SQLite file of each run's own warehouse on local disk; with {@code nessie} one
 * Nessie server (Iceberg REST, commits in memory, files in its own S3-compatible store) for the
 * whole benchmark, each run's tables in a namespace of their own, {@code commit.atomic} as {@code
 * --atomic} says. Two benchmarks on Nessie, one with {@code --atomic}, then differ only in the
 * commit mode.
 */
final class FanoutCatalog implements AutoCloseable {
  private final NessieServer nessie; // null: JDBC
  private final boolean atomic;

  private FanoutCatalog(NessieServer nessie, boolean atomic) {
    this.nessie = nessie;
    this.atomic = atomic;
  }

  /** The catalog {@code options} name; with Nessie, its server started (and stopped by close). */
  static FanoutCatalog start(FanoutOptions options) {
    if (!options.catalog().equals(FanoutOptions.NESSIE)) {
      return new FanoutCatalog(null, false);
    }
    NessieServer nessie =
        NessieServer.start(
            options.runDir().resolve("nessie"),
            options.root().resolve("e2e/target/e2e-work/kafka-dists"),
            options.root().resolve("mvnw").toString(),
            NessieServer.Store.IN_MEMORY);
    return new FanoutCatalog(nessie, options.atomic());
  }

  /** What our connector's Iceberg tables are kept in, for the output. */
  static String describe(FanoutOptions options) {
    return options.catalog().equals(FanoutOptions.NESSIE)
        ? "Iceberg catalog of ours: Nessie 0.99 (Iceberg REST, in memory, files in S3Mock), one"
            + " server for all runs, commit.atomic="
            + options.atomic()
        : "Iceberg catalog of ours: JDBC (SQLite) on local disk, one per run";
  }

  /** The format column of a run: the format, and on Nessie the commit mode. */
  String label(String format) {
    return nessie == null ? format : format + ", nessie " + (atomic ? "atomic" : "per-table");
  }

  /**
   * Our connector's keys for its catalog {@code bench} of Iceberg tables in run {@code name} (JDBC:
   * under {@code warehouse}), and with Nessie the namespace of route {@code r}.
   */
  Map<String, String> icebergKeys(String name, Path warehouse) {
    Map<String, String> c = new HashMap<>();
    if (nessie == null) {
      c.put("catalog.bench.type", "jdbc");
      c.put("catalog.bench.uri", "jdbc:sqlite:" + warehouse.resolve("catalog.db"));
      c.put("catalog.bench.warehouse", warehouse.toString());
    } else {
      nessie.catalogProperties().forEach((k, v) -> c.put("catalog.bench." + k, v));
      // Set either way, so that the config each run prints says the mode.
      c.put("catalog.bench.commit.atomic", Boolean.toString(atomic));
      // One server for every run: a namespace per run starts its tables new, as a JDBC run's are.
      c.put("route.r.namespace", namespace(name));
    }
    return c;
  }

  /**
   * The data files in the current snapshots of run {@code name}'s {@code tables} tables: on Nessie
   * from the catalog's snapshot summaries, else the Parquet and ORC files under {@code warehouse}.
   */
  long dataFiles(String name, int tables, Path warehouse) throws Exception {
    if (nessie == null) {
      return filesUnder(warehouse);
    }
    Map<String, String> io = new HashMap<>(nessie.catalogProperties());
    io.remove("type");
    io.remove("uri");
    long files = 0;
    try (IcebergTables catalog = IcebergTables.rest(nessie.icebergUri(), io)) {
      for (int t = 0; t < tables; t++) {
        // The connector sanitizes the table field's fanout.t<n> (no namespace) into fanout_t<n>.
        String table = namespace(name) + ".fanout_t" + t;
        if (catalog.exists(table)) {
          files += Long.parseLong(catalog.lastSummary(table).getOrDefault("total-data-files", "0"));
        }
      }
    }
    return files;
  }

  private static String namespace(String run) {
    return "run_" + run.replace('-', '_');
  }

  private static long filesUnder(Path warehouse) throws Exception {
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

  @Override
  public void close() {
    if (nessie != null) {
      nessie.close();
    }
  }
}
