package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.ConnectWorker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/** The worker JVMs of the benchmarks: their flags and the profiles they leave behind. */
final class BenchWorkers {
  private BenchWorkers() {}

  /**
   * With STREAMHOUSE_BENCH_JFR set, each worker JVM records a JFR profile into its run folder, kept
   * as {@code worker-<connector>.jfr} once the JVM has exited (see {@link #keepProfile}).
   */
  static List<String> workerFlags(String heap) {
    List<String> flags = new ArrayList<>(List.of("-Xmx" + heap, "-XX:+UseG1GC"));
    if (System.getenv("STREAMHOUSE_BENCH_JFR") != null) {
      flags.add("-XX:StartFlightRecording=settings=profile,filename=worker.jfr,dumponexit=true");
    }
    String extra = System.getenv("STREAMHOUSE_BENCH_WORKER_FLAGS");
    if (extra != null && !extra.isBlank()) {
      flags.addAll(List.of(extra.trim().split("\\s+")));
    }
    return flags;
  }

  /**
   * Names a stopped worker's profile (if any) after the connector it ran, so that the next run
   * keeps its own.
   */
  static void keepProfile(ConnectWorker worker, String connector) throws IOException {
    Path profile = worker.logFile().resolveSibling("worker.jfr");
    if (Files.exists(profile)) {
      Files.move(
          profile,
          profile.resolveSibling("worker-" + connector + ".jfr"),
          StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
