package io.streamhouse.connect.commit.task;

/**
 * The commit rounds a task heard start, and when the last {@link #ROUND_RING} of them started: it
 * says whether a round started after a given point and had the time to be answered (and decided).
 * The {@link TakeOverGate} counts a batch as its task's last word, and a hold as run out, only
 * after such a round: time alone does not say a task is gone. Not thread-safe: the gate calls it
 * under its lock.
 */
final class RoundStarts {
  /** How many round starts are remembered (a batch or hold older than that many rounds had one). */
  private static final int ROUND_RING = 16;

  /** Rounds started (as this task heard them), when the last {@link #ROUND_RING} started. */
  private long rounds;

  private final long[] roundStarts = new long[ROUND_RING];
  private long lastRoundId = Long.MIN_VALUE;

  /**
   * The coordinator the task answers started round {@code commitId} at {@code nowMs}; false when it
   * is the round heard last.
   */
  boolean started(long commitId, long nowMs) {
    if (commitId == lastRoundId) {
      return false;
    }
    lastRoundId = commitId;
    rounds++;
    roundStarts[(int) (rounds % ROUND_RING)] = nowMs;
    return true;
  }

  /** Rounds started so far. */
  long count() {
    return rounds;
  }

  /**
   * Whether a round started after the first {@code before} rounds, at least {@code answerMs} before
   * {@code nowMs}: one its tasks had the time to answer (and its coordinator to decide).
   */
  boolean answeredSince(long before, long nowMs, long answerMs) {
    if (rounds <= before) {
      return false;
    }
    if (rounds - before >= ROUND_RING) {
      return true; // the first of them started long ago
    }
    return nowMs - roundStarts[(int) ((before + 1) % ROUND_RING)] >= answerMs;
  }
}
