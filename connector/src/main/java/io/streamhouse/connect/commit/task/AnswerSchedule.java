package io.streamhouse.connect.commit.task;

/**
 * When a task should cut its next batch so that the answer is ready as the commit request comes
 * (prepare ahead, docs/architecture.md): the coordinator asks every {@code commit.interval.ms},
 * counted from the start of its last round, so the next request is due one interval after the last
 * one arrived. The cut comes the predicted flush's duration before that, plus a margin, and never
 * more than half an interval early, so that a cut takes at least half an interval of records.
 * Records written between the cut and the request wait for the round after, so a cut ahead costs
 * them one interval of freshness: there is none when the flush would take less than {@link
 * #MIN_FLUSH_MS}, where the request answers about as fast by taking the files out itself. A flush's
 * time grows with the records it holds, so the schedule predicts the next one from the time per
 * record of the last flush and the records written since the last cut (a flush of a few records
 * after a start, whose time is mostly per file, predicts too long a flush: the cut comes early, not
 * late). One cut per request: after it, nothing is due until the next request arrives. The first
 * request is expected one interval after the task {@link #started} (the coordinator starts its
 * clock as the tasks start), and with no flush measured yet its cut comes half an interval early:
 * the first flushes after a start are the slowest (the JVM still compiles the writers' code), and a
 * request that answered them itself took seconds at hundreds of tables. Times are {@link
 * System#nanoTime()} values in milliseconds; not thread-safe (the control thread's own).
 */
final class AnswerSchedule {
  /** Added to the predicted flush, for a flush that takes longer than predicted. */
  static final long MARGIN_MS = 250;

  /**
   * A flush predicted shorter than this is done at the request: cutting ahead would gain little.
   */
  static final long MIN_FLUSH_MS = 250;

  /** The lead is the predicted flush times this, plus {@link #MARGIN_MS}. */
  private static final double FLUSH_FACTOR = 1.5;

  private final long intervalMs;
  private boolean known;
  private boolean requestSeen;
  private long lastRequestAtMs;
  private double flushMsPerRecord;
  private boolean flushKnown;
  private boolean cut;
  private boolean handOverRequested;
  private long lastTakenAtMs;

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

  /**
   * A new commit request (not a repeated one) arrived at {@code nowMs}; {@code tookOut}: the task
   * took what its writers held out for it (it was not {@link #unscheduled}).
   */
  void requested(long nowMs, boolean tookOut) {
    known = true;
    requestSeen = true;
    lastRequestAtMs = nowMs;
    cut = false;
    handOverRequested = false;
    if (tookOut) {
      lastTakenAtMs = nowMs;
    }
  }

  /**
   * Another task asked the coordinator for a round for its hand-over (its {@code RoundRequest} was
   * read on the control topic): the next new request is that round, started at once.
   */
  void handOverRequested() {
    handOverRequested = true;
  }

  /**
   * The round in progress was asked for again: a hand-over's request that came during it, which
   * that round takes, so the next request is a regular one.
   */
  void repeated() {
    handOverRequested = false;
  }

  /**
   * Whether a new request at {@code nowMs} is not the coordinator's regular round but one started
   * for a hand-over: another task's request for it was read since the last request, or it comes
   * less than half an interval after the last one (a hand-over's request this task did not see yet,
   * or a coordinator that just took over). Its round is committed as soon as the handing-over tasks
   * answered, so what this task would take out of its writers for it would go into the next round
   * anyway, and closing every file at once would slow the round and the hand-over it serves (at 200
   * tables, seconds): it answers with what it has closed, and leaves the rest for the next regular
   * request. A hand-over's request counts only within an interval of the last request this task
   * took its writers' records out for, so that tasks restarting again and again cannot hold those
   * records back for longer. Never before the first request (the phase of the rounds is not known
   * yet) or when cutting ahead is off.
   */
  boolean unscheduled(long nowMs) {
    if (!requestSeen || intervalMs <= 0) {
      return false;
    }
    return nowMs < lastRequestAtMs + intervalMs / 2
        || (handOverRequested && nowMs < lastTakenAtMs + intervalMs);
  }

  /**
   * The last flush, ahead or not, closed {@code files} files of {@code records} records in {@code
   * flushMs}. One that closed none (the answer to a hand-over's round, a task with nothing written
   * yet) says nothing about the next and is not counted.
   */
  void flushed(long flushMs, long files, long records) {
    if (files <= 0) {
      return;
    }
    flushMsPerRecord = (double) Math.max(0, flushMs) / Math.max(1, records);
    flushKnown = true;
  }

  /** How long a flush of {@code records} records is expected to take; -1 before any flush. */
  long predictedFlushMs(long records) {
    return flushKnown ? (long) (flushMsPerRecord * Math.max(0, records)) : -1;
  }

  /**
   * How long before the expected request a cut of {@code records} records comes: half an interval
   * before any flush was measured, never more.
   */
  long leadMs(long records) {
    if (!flushKnown) {
      return intervalMs / 2;
    }
    return Math.min(intervalMs / 2, (long) (predictedFlushMs(records) * FLUSH_FACTOR) + MARGIN_MS);
  }

  /**
   * When the next cut of {@code records} records is due; {@link Long#MAX_VALUE} before the start or
   * the first request, after this request's cut, when such a flush is short, when nothing was
   * written since the last cut (the cut waits for the first record: after a start, records may
   * arrive only after the moment it was due, as when the consumer group's first rebalance waits for
   * its members, and the first flush must still come before the first request), and when cutting
   * ahead is off.
   */
  long cutAtMs(long records) {
    if (!known || cut || intervalMs <= 0 || records <= 0) {
      return Long.MAX_VALUE;
    }
    if (flushKnown && predictedFlushMs(records) < MIN_FLUSH_MS) {
      return Long.MAX_VALUE;
    }
    return lastRequestAtMs + intervalMs - leadMs(records);
  }

  /** Whether the cut of {@code records} records written since the last is due at {@code nowMs}. */
  boolean due(long nowMs, long records) {
    long at = cutAtMs(records);
    return at != Long.MAX_VALUE && nowMs >= at;
  }

  /**
   * Milliseconds from {@code nowMs} until the cut of {@code records} records is due: 0 when due,
   * MAX_VALUE when none is (more records may make one due: the caller asks again).
   */
  long untilCutMs(long nowMs, long records) {
    long at = cutAtMs(records);
    return at == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, at - nowMs);
  }

  /** The cut for the coming request was made (or found nothing to take): none until it arrives. */
  void cutMade() {
    cut = true;
  }
}
