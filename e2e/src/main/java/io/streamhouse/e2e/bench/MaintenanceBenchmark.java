package io.streamhouse.e2e.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Table maintenance benchmark, in one JVM without a broker: the connector's own Iceberg commit path
 * ({@code IcebergFormat.commit}) on a JDBC (SQLite) catalog in a local directory, N commit rounds
 * of one small file from each of two tasks, once without maintenance and once with a maintenance
 * pass ({@code IcebergFormat.maintain}: snapshot expiry and compaction) every M commits, run on the
 * committing thread between two commits (so a commit never waits for it, and its own time is
 * printed apart). At each checkpoint it prints the latency of the last 100 commits and the size of
 * the table's metadata; at the end, the time of a full scan of the table without maintenance before
 * and after one compaction pass, and the heap in use.
 */
public final class MaintenanceBenchmark {
  private final MaintenanceOptions options;

  private MaintenanceBenchmark(MaintenanceOptions options) {
    this.options = options;
  }

  public static void main(String[] args) throws Exception {
    new MaintenanceBenchmark(MaintenanceOptions.parse(args)).run();
  }

  private void run() throws Exception {
    Path dir = options.dir();
    Files.createDirectories(dir);
    List<Map<String, String>> growth = new ArrayList<>();
    List<Map<String, String>> scans = new ArrayList<>();
    for (String mode : options.modes()) {
      boolean maintained = mode.equals("on");
      MaintenanceRun run = new MaintenanceRun(dir.resolve("table-" + mode), maintained, options);
      try {
        run.commitRounds(options.checkpoints(), growth);
        if (!maintained) {
          run.scanBeforeAndAfterCompaction(scans);
        } else {
          scans.add(run.scan("with maintenance, at the end"));
        }
      } finally {
        run.close();
      }
    }
    System.gc();
    long heapMb = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() >> 20;
    long maxMb = Runtime.getRuntime().maxMemory() >> 20;

    System.out.println();
    System.out.printf(
        "Maintenance: %d records per commit from %d tasks (one file each), JDBC/SQLite catalog;"
            + " maintenance every %d commits on the committing thread (expiry: max age %d ms,"
            + " keep the newest %d; compaction on)%n",
        options.recordsPerCommit(),
        MaintenanceRun.TASKS,
        options.maintainEvery(),
        options.expireMaxAgeMs(),
        options.expireMinSnapshots());
    System.out.println();
    MarkdownTable.print(growth);
    System.out.println();
    MarkdownTable.print(scans);
    System.out.println();
    System.out.printf("heap used at the end (after a GC): %,d MB of %,d MB%n", heapMb, maxMb);
    System.out.println("tables under " + dir);
  }
}
