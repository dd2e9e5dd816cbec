package io.streamhouse.e2e.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line of {@link MaintenanceBenchmark}: {@code --name value} pairs.
 *
 * @param dir this run's folder, {@code maintenance-<millis>} under {@code --run-dir}
 * @param checkpoints {@code --commits}, sorted: the last is the number of commits
 * @param modes {@code --modes}: off (no maintenance), on (a pass every {@code maintainEvery})
 */
record MaintenanceOptions(
    Path dir,
    List<Integer> checkpoints,
    List<String> modes,
    int recordsPerCommit,
    int maintainEvery,
    long expireMaxAgeMs,
    int expireMinSnapshots) {

  static MaintenanceOptions parse(String[] args) {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      o.put(args[i].substring(2), args[i + 1]);
    }
    Path root = Path.of(o.getOrDefault("repo-root", ".")).toAbsolutePath().normalize();
    Path dir =
        Path.of(o.getOrDefault("run-dir", root.resolve("e2e/target/bench").toString()))
            .resolve("maintenance-" + System.currentTimeMillis());
    List<Integer> checkpoints =
        Arrays.stream(o.getOrDefault("commits", "100,1000,5000").split(","))
            .map(String::trim)
            .map(Integer::parseInt)
            .sorted()
            .toList();
    List<String> modes =
        Arrays.stream(o.getOrDefault("modes", "off,on").split(",")).map(String::trim).toList();
    return new MaintenanceOptions(
        dir,
        checkpoints,
        modes,
        Integer.parseInt(o.getOrDefault("records-per-commit", "100")),
        Integer.parseInt(o.getOrDefault("maintain-every", "50")),
        Long.parseLong(o.getOrDefault("expire-max-age-ms", "1000")),
        Integer.parseInt(o.getOrDefault("expire-min-snapshots", "100")));
  }
}
