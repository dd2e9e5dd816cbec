package io.streamhouse.e2e.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What a table sink adds to the worker's own work: its drain time minus the do-nothing sink's on
 * the same worker version with as many tasks, and the same per record in steady state. The
 * do-nothing sink pays for the consumer and the converter, so this is the sink's own cost.
 */
final class CostOverCeiling {
  /**
   * One drain: {@code ceiling} marks a do-nothing sink; {@code readSeconds} is when the last record
   * was read ({@link LastRecordRead}), -1 when unknown.
   */
  record Run(
      String sink,
      String worker,
      int tasks,
      boolean ceiling,
      double seconds,
      double steadyRate,
      double readSeconds) {
    Run(String sink, String worker, int tasks, boolean ceiling, double seconds, double steadyRate) {
      this(sink, worker, tasks, ceiling, seconds, steadyRate, -1);
    }
  }

  static final String SECONDS = "s over do-nothing";
  static final String MICROS = "steady µs/record over do-nothing";

  private CostOverCeiling() {}

  /** The two cost columns of {@code run}, "n/a" without a do-nothing run to compare with. */
  static Map<String, String> columns(Run run, List<Run> all) {
    Map<String, String> columns = new LinkedHashMap<>();
    Optional<Run> ceiling = ceilingOf(run, all);
    columns.put(
        SECONDS,
        run.ceiling() || ceiling.isEmpty()
            ? "n/a"
            : String.format(Locale.ROOT, "%.1f", run.seconds() - ceiling.get().seconds()));
    columns.put(
        MICROS,
        run.ceiling()
                || ceiling.isEmpty()
                || run.steadyRate() <= 0
                || ceiling.get().steadyRate() <= 0
            ? "n/a"
            : String.format(
                Locale.ROOT, "%.2f", 1e6 / run.steadyRate() - 1e6 / ceiling.get().steadyRate()));
    return columns;
  }

  /** Lines comparing each other table sink's cost with {@code ours}', per task count. */
  static List<String> comparison(String ours, List<Run> all) {
    List<String> lines = new ArrayList<>();
    for (Run run : all) {
      if (run.ceiling() || run.sink().equals(ours)) {
        continue;
      }
      Optional<Run> mine =
          all.stream().filter(r -> r.sink().equals(ours) && r.tasks() == run.tasks()).findFirst();
      Optional<Run> theirCeiling = ceilingOf(run, all);
      Optional<Run> myCeiling = mine.flatMap(m -> ceilingOf(m, all));
      if (mine.isEmpty() || theirCeiling.isEmpty() || myCeiling.isEmpty()) {
        continue;
      }
      double theirs = run.seconds() - theirCeiling.get().seconds();
      double mineSeconds = mine.get().seconds() - myCeiling.get().seconds();
      lines.add(
          String.format(
              Locale.ROOT,
              "%d task(s): %s adds %.1f s to the do-nothing drain, %s %.1f s: %.2fx",
              run.tasks(),
              run.sink(),
              theirs,
              ours,
              mineSeconds,
              theirs / mineSeconds));
    }
    return lines;
  }

  private static Optional<Run> ceilingOf(Run run, List<Run> all) {
    return all.stream()
        .filter(r -> r.ceiling() && r.worker().equals(run.worker()) && r.tasks() == run.tasks())
        .findFirst();
  }
}
