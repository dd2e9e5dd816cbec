package io.streamhouse.connect.commit.task;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long a task took to answer each commit request, and in which parts: taking the files out of
 * its writers (owning the task state) and closing them (without it), or, for a batch cut ahead of
 * the request, how long the request waited for its files and how old the cut was. Logged once per
 * round; an answer slower than {@code commit.timeout.ms} is a WARN and counted, since the
 * coordinator committed that round without it (the batches go into the next round).
 */
final class CommitAnswers {
  private static final Logger LOG = LoggerFactory.getLogger(CommitAnswers.class);

  private final String task;
  private final long timeoutMs;
  private final AtomicLong lastAnswerMs = new AtomicLong();
  private final AtomicLong late = new AtomicLong();

  CommitAnswers(String task, long timeoutMs) {
    this.task = task;
    this.timeoutMs = timeoutMs;
  }

  /**
   * Commit {@code commitId} was answered: the request came at {@code requestedAt}, the files were
   * taken out by {@code detachedAt} and closed by {@code closedAt} ({@link System#nanoTime()}).
   * {@code cutAgeMs}: how long before the request the batch was cut ahead, -1 when the request took
   * the files out itself; {@code aheadFlushMs}: how long the files of that cut took to close;
   * {@code kept}: an unscheduled request, for which nothing was taken out ({@link
   * AnswerSchedule#unscheduled}).
   */
  void answered(
      long commitId,
      long requestedAt,
      long detachedAt,
      long closedAt,
      int batches,
      long files,
      long bytes,
      int offeredAgain,
      long cutAgeMs,
      long aheadFlushMs,
      boolean kept) {
    long totalMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - requestedAt);
    long detachMs = TimeUnit.NANOSECONDS.toMillis(detachedAt - requestedAt);
    long flushMs = TimeUnit.NANOSECONDS.toMillis(closedAt - detachedAt);
    lastAnswerMs.set(totalMs);
    String cut =
        kept
            ? "an unscheduled round (a hand-over's): what was written since the last cut waits for"
                + " the next"
            : cutAgeMs < 0
                ? "cut at the request"
                : "prepared ahead: cut "
                    + cutAgeMs
                    + " ms before the request, closed in "
                    + aheadFlushMs
                    + " ms";
    if (totalMs > timeoutMs) {
      late.incrementAndGet();
      LOG.warn(
          "Answered commit {} in {} ms, longer than commit.timeout.ms ({} ms): the coordinator"
              + " commits that round without these {} batches and takes them in its next round"
              + " ({} batches offered again; detach {} ms, flush {} ms, {} files, {} bytes; {})",
          commitId,
          totalMs,
          timeoutMs,
          batches,
          offeredAgain,
          detachMs,
          flushMs,
          files,
          bytes,
          cut);
    } else {
      LOG.info(
          "Answered commit {} in {} ms: detach {} ms, flush {} ms, {} new batches with {}"
              + " files and {} bytes, {} batches offered again; {}",
          commitId,
          totalMs,
          detachMs,
          flushMs,
          batches,
          files,
          bytes,
          offeredAgain,
          cut);
    }
  }

  /** Milliseconds from the last commit request to its answer. */
  long lastAnswerMs() {
    return lastAnswerMs.get();
  }

  /** Answers slower than {@code commit.timeout.ms}. */
  long lateAnswers() {
    return late.get();
  }
}
