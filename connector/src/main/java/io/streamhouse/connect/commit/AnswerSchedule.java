package io.streamhouse.connect.commit;

/**
 * When a task should cut its next batch so that the answer is ready as the commit request comes
 * (prepare ahead, docs/architecture.md): the coordinator asks every {@code commit.interval.ms},
 * counted from the start of its last round, so the next request is due one interval after the last
 * one arrived. The cut comes the last flush's duration before that, plus a margin, and never more
 * than half an interval early, so that a cut takes at least half an interval of records. Records
 * written between the cut and the request wait for the round after, so a cut ahead costs them one
 * interval of freshness: there is none when the last flush took less than {@link #MIN_FLUSH_MS},
 * where the request answers about as fast by taking the files out itself. One cut per request:
 * after it, nothing is due until the next request arrives. The first request is expected one
 * interval after the task {@link #started} (the coordinator starts its clock as the tasks start),
 * and with no flush measured yet its cut comes half an interval early: the first flushes after a
 * start are the slowest (the JIT compiles the writers meanwhile), and a request that answered them
 * itself took seconds at hundreds of tables. Times are {@link System#nanoTime()} values in
 * milliseconds; not thread-safe (the control thread's own).
 */
final class AnswerSchedule {
  /** Added to the last flush's duration, for a flush that takes longer than the last. */
  static final long MARGIN_MS = 250;

  /** A flush shorter than this is done at the request: cutting ahead would gain little. */
  static final long MIN_FLUSH_MS = 250;

  /** The lead is the last flush times this, plus {@link #MARGIN_MS}. */
  private static final double FLUSH_FACTOR = 1.5;

  private final long intervalMs;
  private boolean known;
  private long lastRequestAtMs;
  private long lastFlushMs;
  private boolean flushKnown;
  private boolean cut;

  /** {@code intervalMs} 0 or less: never cut ahead. */
  AnswerSchedule(long intervalMs) {
    this.intervalMs = intervalMs;
  }

  /**
   * The task started at {@code nowMs}: its first request is expected one interval later, unless a
   * request came already.
   */
  void started(long nowMs) {
    if (!known) {
      known = true;
      lastRequestAtMs = nowMs;
    }
  }

  /** A new commit request (not a repeated one) arrived at {@code nowMs}. */
  void requested(long nowMs) {
    known = true;
    lastRequestAtMs = nowMs;
    cut = false;
  }

  /**
   * The last flush, ahead or not, closed {@code files} files in {@code flushMs}. One that closed
   * none (the answer to a hand-over's round, a task with nothing written yet) says nothing about
   * the next and is not counted.
   */
  void flushed(long flushMs, long files) {
    if (files <= 0) {
      return;
    }
    lastFlushMs = Math.max(0, flushMs);
    flushKnown = true;
  }

  /** How long before the expected request the cut comes: half an interval before any flush. */
  long leadMs() {
    if (!flushKnown) {
      return intervalMs / 2;
    }
    return Math.min(intervalMs / 2, (long) (lastFlushMs * FLUSH_FACTOR) + MARGIN_MS);
  }

  /**
   * When the next cut is due; {@link Long#MAX_VALUE} before the start or the first request, after
   * this request's cut, and when cutting ahead is off.
   */
  long cutAtMs() {
    if (!known || cut || intervalMs <= 0 || (flushKnown && lastFlushMs < MIN_FLUSH_MS)) {
      return Long.MAX_VALUE;
    }
    return lastRequestAtMs + intervalMs - leadMs();
  }

  /** Whether the cut is due at {@code nowMs}. */
  boolean due(long nowMs) {
    long at = cutAtMs();
    return at != Long.MAX_VALUE && nowMs >= at;
  }

  /** Milliseconds from {@code nowMs} until the cut is due: 0 when due, MAX_VALUE when none is. */
  long untilCutMs(long nowMs) {
    long at = cutAtMs();
    return at == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, at - nowMs);
  }

  /** The cut for the coming request was made (or found nothing to take): none until it arrives. */
  void cutMade() {
    cut = true;
  }
}
