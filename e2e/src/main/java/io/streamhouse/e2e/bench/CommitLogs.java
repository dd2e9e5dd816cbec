package io.streamhouse.e2e.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Commit figures of one connector, read from the commit lines of a worker log. */
final class CommitLogs {
  private static final Pattern COMMIT_MS =
      Pattern.compile("\\[([^|\\]]+)\\|task-\\d+\\] Commit \\d+ of .* in \\d+ files, (\\d+) ms");
  private static final Pattern TABLE_COMMIT =
      Pattern.compile(
          "\\[([^|\\]]+)\\|task-\\d+\\] Commit (\\d+) of (\\S+): \\d+ batches, \\d+ records in (\\d+) files,"
              + " (\\d+) ms");
  private static final Pattern ROUND =
      Pattern.compile(
          "\\[([^|\\]]+)\\|task-\\d+\\] Commit \\d+ round: (\\d+) tables in (\\d+) ms after (\\d+) ms"
              + " waiting for the tasks");
  private static final Pattern TIMED_OUT =
      Pattern.compile(
          "\\[([^|\\]]+)\\|task-\\d+\\] Commit \\d+: no report for .* after \\d+ ms; committing what"
              + " arrived");
  private static final Pattern ANSWERED =
      Pattern.compile("\\[([^|\\]]+)\\|task-\\d+\\] Answered commit \\d+ in (\\d+) ms");

  /**
   * A revocation's hand-in (the task goes on at once), a stopping task's wait for decisions, or its
   * wait for a round to take its batches when the next owners read on after them.
   */
  private static final Pattern HANDED_OVER =
      Pattern.compile(
          "\\[([^|\\]]+)\\|task-\\d+\\] (?:Handed (?:over|in) (\\d+) batches (?:\\(\\d+ closed now\\) )?in"
              + " (\\d+) ms|Offered its (\\d+) handed-in batches in a round (\\d+) ms"
              + "|No round took its (\\d+) handed-in batches within (\\d+) ms)");

  /** How long partitions given to a task were held for the decision on their handed-in batches. */
  private static final Pattern TAKEN_OVER =
      Pattern.compile(
          "\\[([^|\\]]+)\\|task-\\d+\\] Reads \\[.*\\] (?:from now on, (\\d+) ms after their"
              + " assignment|after (\\d+) ms without a decision)");

  private CommitLogs() {}

  /** The mean and longest table commit, and their count: "avg/max (n commits)" or "n/a". */
  static String commitLatency(Path log, String connector) throws Exception {
    long sum = 0;
    long max = 0;
    int n = 0;
    for (String line : Files.readAllLines(log)) {
      Matcher m = COMMIT_MS.matcher(line);
      if (m.find() && m.group(1).equals(connector)) {
        long ms = Long.parseLong(m.group(2));
        sum += ms;
        max = Math.max(max, ms);
        n++;
      }
    }
    return n == 0 ? "n/a" : (sum / n) + "/" + max + " (" + n + " commits)";
  }

  /**
   * From the worker log: files per table per commit (mean and max), commit round durations (mean
   * and max), the rounds that committed without every report after the commit timeout, and the
   * longest wait of a round for the tasks' reports.
   */
  static Map<String, String> commitFigures(Path log, String connector) throws Exception {
    return commitFigures(Files.readAllLines(log), connector);
  }

  static Map<String, String> commitFigures(List<String> log, String connector) {
    long tableCommits = 0;
    long files = 0;
    long maxFiles = 0;
    long rounds = 0;
    long roundMs = 0;
    long maxRoundMs = 0;
    long maxWaitMs = 0;
    long timedOut = 0;
    long maxAnswerMs = -1;
    long handOvers = 0;
    long maxHandOverMs = -1;
    long takeOvers = 0;
    long maxTakeOverMs = -1;
    long expiredTakeOvers = 0;
    for (String line : log) {
      Matcher o = TAKEN_OVER.matcher(line);
      if (o.find() && o.group(1).equals(connector)) {
        takeOvers++;
        expiredTakeOvers += o.group(3) != null ? 1 : 0;
        maxTakeOverMs =
            Math.max(maxTakeOverMs, Long.parseLong(o.group(2) != null ? o.group(2) : o.group(3)));
      }
      Matcher a = ANSWERED.matcher(line);
      if (a.find() && a.group(1).equals(connector)) {
        maxAnswerMs = Math.max(maxAnswerMs, Long.parseLong(a.group(2)));
      }
      Matcher h = HANDED_OVER.matcher(line);
      if (h.find() && h.group(1).equals(connector)) {
        int g = h.group(2) != null ? 2 : h.group(4) != null ? 4 : 6;
        if (Long.parseLong(h.group(g)) > 0) {
          handOvers++;
          maxHandOverMs = Math.max(maxHandOverMs, Long.parseLong(h.group(g + 1)));
        }
      }
      Matcher t = TABLE_COMMIT.matcher(line);
      if (t.find() && t.group(1).equals(connector)) {
        long f = Long.parseLong(t.group(4));
        tableCommits++;
        files += f;
        maxFiles = Math.max(maxFiles, f);
      }
      Matcher r = ROUND.matcher(line);
      if (r.find() && r.group(1).equals(connector)) {
        long ms = Long.parseLong(r.group(3));
        rounds++;
        roundMs += ms;
        maxRoundMs = Math.max(maxRoundMs, ms);
        maxWaitMs = Math.max(maxWaitMs, Long.parseLong(r.group(4)));
      }
      Matcher w = TIMED_OUT.matcher(line);
      if (w.find() && w.group(1).equals(connector)) {
        timedOut++;
      }
    }
    Map<String, String> figures = new LinkedHashMap<>();
    figures.put(
        "files/table/commit (mean/max)",
        tableCommits == 0
            ? "n/a"
            : String.format("%.1f/%d", (double) files / tableCommits, maxFiles));
    figures.put("commit rounds", Long.toString(rounds));
    figures.put("round ms (mean/max)", rounds == 0 ? "n/a" : roundMs / rounds + "/" + maxRoundMs);
    figures.put("rounds past timeout", Long.toString(timedOut));
    figures.put("max wait for tasks ms", rounds == 0 ? "n/a" : Long.toString(maxWaitMs));
    figures.put("max task answer ms", maxAnswerMs < 0 ? "n/a" : Long.toString(maxAnswerMs));
    figures.put(
        "hand-overs (max ms)",
        handOvers == 0 ? "0" : String.format("%d (%d)", handOvers, maxHandOverMs));
    figures.put(
        "partitions held for a hand-over (max ms, without decision)",
        takeOvers == 0
            ? "0"
            : String.format("%d (%d, %d)", takeOvers, maxTakeOverMs, expiredTakeOvers));
    return figures;
  }
}
