package io.streamhouse.connect.commit.task;

import java.util.concurrent.TimeUnit;

/**
 * How long a hand-over waits for the coordinator: {@code commit.handover-timeout.ms}, or twice the
 * last round as this task saw it (from the request to the first decision), whichever is longer, so
 * that a hand-over over tables whose round takes longer than the setting (Paimon at hundreds of
 * tables) does not run out while its round commits. Twice the round never goes past {@link
 * #CAP_MS}, below the worker's default {@code task.shutdown.graceful.timeout.ms} (5 s), unless the
 * setting itself is higher (whoever raised it raised the worker's timeout too, as its documentation
 * asks). Thread-safe: the control thread reports rounds, the task thread asks.
 */
final class HandOverWait {
  /** Below the worker's default graceful stop of 5 s, with room for the task's own close. */
  static final long CAP_MS = 4_500;

  private long requestedCommit = -1;
  private long requestedAtNanos;
  private long lastRoundMs;

  /** A new commit request {@code commitId} arrived at {@code nanos}. */
  synchronized void requested(long commitId, long nanos) {
    requestedCommit = commitId;
    requestedAtNanos = nanos;
  }

  /** A decision of commit {@code commitId} arrived at {@code nanos}: its round ended. */
  synchronized void decided(long commitId, long nanos) {
    if (commitId == requestedCommit) {
      lastRoundMs = TimeUnit.NANOSECONDS.toMillis(nanos - requestedAtNanos);
      requestedCommit = -1;
    }
  }

  /** The last round as the task saw it, 0 before the first. */
  synchronized long lastRoundMs() {
    return lastRoundMs;
  }

  /** The wait for a hand-over whose setting is {@code configuredMs} (0 or less: no hand-over). */
  synchronized long timeoutMs(long configuredMs) {
    if (configuredMs <= 0) {
      return configuredMs;
    }
    return Math.max(configuredMs, Math.min(2 * lastRoundMs, Math.max(configuredMs, CAP_MS)));
  }
}
