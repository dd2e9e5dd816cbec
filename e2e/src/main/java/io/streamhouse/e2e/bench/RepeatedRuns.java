package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.bench.CostOverCeiling.Run;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Several drains of the same sink, worker and task count folded into one: the median drain time and
 * steady rate, and the range the runs covered. On a shared 2-core machine single runs of the same
 * configuration differ by 20 % and more, so comparisons are made between medians.
 */
final class RepeatedRuns {
  private RepeatedRuns() {}

  /** One median run per sink, worker and task count, in the order each first appeared. */
  static List<Run> medians(List<Run> all) {
    Map<String, List<Run>> groups = new LinkedHashMap<>();
    all.forEach(r -> groups.computeIfAbsent(key(r), k -> new ArrayList<>()).add(r));
    List<Run> medians = new ArrayList<>();
    for (List<Run> group : groups.values()) {
      Run first = group.get(0);
      medians.add(
          new Run(
              first.sink(),
              first.worker(),
              first.tasks(),
              first.ceiling(),
              median(group.stream().mapToDouble(Run::seconds).toArray()),
              median(
                  group.stream().mapToDouble(Run::steadyRate).filter(rate -> rate > 0).toArray()),
              median(group.stream().mapToDouble(Run::readSeconds).filter(s -> s > 0).toArray())));
    }
    return medians;
  }

  /**
   * The summary row of one median run: records/s of the median drain and the range of all its runs.
   */
  static Map<String, String> row(Run median, List<Run> all, long records) {
    double[] rates =
        all.stream()
            .filter(r -> key(r).equals(key(median)))
            .mapToDouble(r -> records / r.seconds())
            .sorted()
            .toArray();
    Map<String, String> row = new LinkedHashMap<>();
    row.put("sink", median.sink());
    row.put("worker", median.worker());
    row.put("tasks", Integer.toString(median.tasks()));
    row.put("runs", Integer.toString(rates.length));
    row.put("median seconds", String.format(Locale.ROOT, "%.1f", median.seconds()));
    row.put("median records/s", String.format(Locale.ROOT, "%,.0f", records / median.seconds()));
    row.put(
        "records/s of the runs (min-max)",
        String.format(Locale.ROOT, "%,.0f-%,.0f", rates[0], rates[rates.length - 1]));
    row.put(
        "median steady records/s",
        median.steadyRate() > 0 ? String.format(Locale.ROOT, "%,.0f", median.steadyRate()) : "n/a");
    row.put(
        "median " + SinkDrains.LAST_READ,
        median.readSeconds() > 0
            ? String.format(Locale.ROOT, "%.1f", median.readSeconds())
            : "n/a");
    return row;
  }

  /**
   * Per task count, how many times the throughput of each other table sink ours is: from the
   * medians (the measure), and turn by turn (the k-th run of ours against the k-th of
   * theirs, which ran minutes apart).
   */
  static List<String> throughputRatios(String ours, List<Run> all) {
    List<Run> medians = medians(all);
    List<String> lines = new ArrayList<>();
    for (Run theirs : medians) {
      if (theirs.ceiling() || theirs.sink().equals(ours)) {
        continue;
      }
      Optional<Run> mine =
          medians.stream()
              .filter(r -> r.sink().equals(ours) && r.tasks() == theirs.tasks())
              .findFirst();
      if (mine.isEmpty()) {
        continue;
      }
      List<Run> myTurns = all.stream().filter(r -> key(r).equals(key(mine.get()))).toList();
      List<Run> theirTurns = all.stream().filter(r -> key(r).equals(key(theirs))).toList();
      List<String> turns = new ArrayList<>();
      for (int i = 0; i < Math.min(myTurns.size(), theirTurns.size()); i++) {
        turns.add(
            String.format(
                Locale.ROOT, "%.2f", theirTurns.get(i).seconds() / myTurns.get(i).seconds()));
      }
      String read =
          theirs.readSeconds() > 0 && mine.get().readSeconds() > 0
              ? String.format(
                  Locale.ROOT,
                  "; last record read at %.1f s against %.1f s, %.2fx",
                  mine.get().readSeconds(),
                  theirs.readSeconds(),
                  theirs.readSeconds() / mine.get().readSeconds())
              : "";
      lines.add(
          String.format(
              Locale.ROOT,
              "%d task(s): %s drains %.2fx as fast as %s (median %.1f s against %.1f s; turn by turn %s%s)",
              theirs.tasks(),
              ours,
              theirs.seconds() / mine.get().seconds(),
              theirs.sink(),
              mine.get().seconds(),
              theirs.seconds(),
              String.join(", ", turns),
              read));
    }
    return lines;
  }

  private static String key(Run r) {
    return r.sink() + "|" + r.worker() + "|" + r.tasks();
  }

  /** The median; -1 (no figure) for none. */
  private static double median(double[] values) {
    if (values.length == 0) {
      return -1;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
