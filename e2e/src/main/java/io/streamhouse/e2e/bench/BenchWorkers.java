package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.ConnectWorker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The worker JVMs of the benchmarks: their flags, and the Java Flight Recorder profiles they write
 * when STREAMHOUSE_BENCH_PROFILE is set.
 */
final class BenchWorkers {
  private BenchWorkers() {}

  /**
   * The flags of a worker JVM. With STREAMHOUSE_BENCH_PROFILE set, they make the worker write a
   * Java Flight Recorder profile to {@code worker.jfr} in its run folder when the JVM exits; {@link
   * #keepProfile} renames it {@code worker-<connector>.jfr}.
   */
  static List<String> workerFlags(String heap) {
    List<String> flags = new ArrayList<>(List.of("-Xmx" + heap, "-XX:+UseG1GC"));
    if (System.getenv("STREAMHOUSE_BENCH_PROFILE") != null) {
      flags.add("-XX:StartFlightRecording=settings=profile,filename=worker.jfr,dumponexit=true");
    }
    String extra = System.getenv("STREAMHOUSE_BENCH_WORKER_FLAGS");
    if (extra != null && !extra.isBlank()) {
      flags.addAll(List.of(extra.trim().split("\\s+")));
    }
    return flags;
  }

  /**
   * Renames the Java Flight Recorder profile of a stopped worker (there is one only with
   * STREAMHOUSE_BENCH_PROFILE set) to {@code worker-<connector>.jfr}, after the connector it ran,
   * so that the next run's worker does not overwrite it.
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
