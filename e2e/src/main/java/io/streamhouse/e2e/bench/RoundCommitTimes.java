package io.streamhouse.e2e.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long one connector's rounds took to commit, read from the coordinator's lines in a worker
 * log: the median, 95th percentile and longest, to set per-table commits against round-atomic ones
 * ({@code catalog.<c>.commit.atomic}) on the same catalog.
 */
final class RoundCommitTimes {
  static final String COMMIT_COLUMN = "round commit ms p50/p95/max (rounds)";
  static final String WALL_COLUMN = "round wall ms p50/p95/max";

  /** An atomic catalog's share of a round: its tables staged, then published in one transaction. */
  private static final Pattern TRANSACTION =
      Pattern.compile(
          "\\[([^|\\]]+)\\|task-\\d+\\] Commit (\\d+) of catalog \\S+: \\d+ of \\d+ tables changed"
              + " in one transaction, (\\d+) ms");

  /**
   * A table's commit. In an atomic round the line repeats the transaction's duration for each of
   * its tables.
   */
  private static final Pattern TABLE_COMMIT =
      Pattern.compile(
          "\\[([^|\\]]+)\\|task-\\d+\\] Commit (\\d+) of \\S+: \\d+ batches, \\d+ records in \\d+"
              + " files, (\\d+) ms");

  /** The coordinator's whole round commit, in either mode. */
  private static final Pattern ROUND =
      Pattern.compile("\\[([^|\\]]+)\\|task-\\d+\\] Commit (\\d+) round: \\d+ tables in (\\d+) ms");

  private RoundCommitTimes() {}

  /** The figures of {@code connector} in the worker log {@code log}. */
  static Map<String, String> figures(Path log, String connector) throws Exception {
    return figures(Files.readAllLines(log), connector);
  }

  /**
   * {@link #COMMIT_COLUMN}: the percentiles of {@link #roundCommitMs} and the number of rounds;
   * {@link #WALL_COLUMN}: those of the coordinator's whole round commits.
   */
  static Map<String, String> figures(List<String> log, String connector) {
    List<Long> commits = roundCommitMs(log, connector);
    Map<String, String> figures = new LinkedHashMap<>();
    figures.put(
        COMMIT_COLUMN,
        commits.isEmpty() ? "n/a" : percentiles(commits) + " (" + commits.size() + ")");
    figures.put(WALL_COLUMN, percentiles(byRound(log, connector, ROUND, false).values()));
    return figures;
  }

  /**
   * Each round's commit duration, by commit id. A round on an atomic catalog: its transaction's
   * (summed when it has several atomic catalogs, as they commit one after another; the benchmark
   * has one). A round of per-table commits: its longest table commit. Its tables commit side by
   * side on {@code commit.parallelism} threads (4 by default), each published on its own, so the
   * round's catalog time is set by its slowest table, not by the sum. That leaves out the tables'
   * wait for a free thread: with more tables than threads a per-table round lasts longer than its
   * longest commit, while a transaction's time holds the staging of all its tables. {@link
   * #WALL_COLUMN}, the round's wall-clock time, counts both alike.
   */
  static List<Long> roundCommitMs(List<String> log, String connector) {
    Map<Long, Long> transactions = byRound(log, connector, TRANSACTION, true);
    Map<Long, Long> rounds = byRound(log, connector, TABLE_COMMIT, false);
    rounds.putAll(transactions); // an atomic round's table lines repeat its transaction's time
    return new ArrayList<>(rounds.values());
  }

  /**
   * The durations ({@code pattern}'s group 3) of {@code connector}'s lines by commit id (group 2):
   * the sum or the longest of each round's lines.
   */
  private static Map<Long, Long> byRound(
      List<String> log, String connector, Pattern pattern, boolean sum) {
    Map<Long, Long> byRound = new TreeMap<>();
    for (String line : log) {
      Matcher m = pattern.matcher(line);
      if (m.find() && m.group(1).equals(connector)) {
        long ms = Long.parseLong(m.group(3));
        byRound.merge(Long.parseLong(m.group(2)), ms, sum ? Long::sum : Long::max);
      }
    }
    return byRound;
  }

  /** "p50/p95/max" by the nearest-rank method, "n/a" for none. */
  static String percentiles(Collection<Long> values) {
    if (values.isEmpty()) {
      return "n/a";
    }
    List<Long> sorted = values.stream().sorted().toList();
    return rank(sorted, 0.50) + "/" + rank(sorted, 0.95) + "/" + sorted.get(sorted.size() - 1);
  }

  private static long rank(List<Long> sorted, double p) {
    return sorted.get(Math.max(0, (int) Math.ceil(p * sorted.size()) - 1));
  }
}
