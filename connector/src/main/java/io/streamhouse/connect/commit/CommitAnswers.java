package io.streamhouse.connect.commit;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long a task took to answer each commit request, and in which parts: taking the files out of
 * its writers (under the lock {@code put} needs) and closing them (without it). Logged once per
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
   */
  void answered(
      long commitId,
      long requestedAt,
      long detachedAt,
      long closedAt,
      int batches,
      long files,
      long bytes,
      int offeredAgain) {
    long totalMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - requestedAt);
    long detachMs = TimeUnit.NANOSECONDS.toMillis(detachedAt - requestedAt);
    long flushMs = TimeUnit.NANOSECONDS.toMillis(closedAt - detachedAt);
    lastAnswerMs.set(totalMs);
    if (totalMs > timeoutMs) {
      late.incrementAndGet();
      LOG.warn(
          "Answered commit {} in {} ms, longer than commit.timeout.ms ({} ms): the coordinator"
              + " commits that round without these {} batches and takes them in its next round"
              + " (detach {} ms, flush {} ms, {} files, {} bytes)",
          commitId,
          totalMs,
          timeoutMs,
          batches,
          detachMs,
          flushMs,
          files,
          bytes);
    } else {
      LOG.info(
          "Answered commit {} in {} ms: detach {} ms, flush {} ms, {} new batches with {}"
              + " files and {} bytes, {} batches offered again",
          commitId,
          totalMs,
          detachMs,
          flushMs,
          batches,
          files,
          bytes,
          offeredAgain);
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
