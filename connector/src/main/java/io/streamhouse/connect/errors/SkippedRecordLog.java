package io.streamhouse.connect.errors;

import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * The WARN lines of bad records skipped without any dead-letter destination, rate-limited: the
 * first one, then at most one per interval, which says how many were skipped since the last line
 * without one of their own. A stream of bad records thus cannot flood the worker log, and none goes
 * unmentioned.
 */
final class SkippedRecordLog {
  private final Logger log;
  private final long intervalMs;
  private final LongSupplier millis;
  private long lastLineAt;
  private boolean logged;
  private long suppressed;

  SkippedRecordLog(Logger log, long intervalMs, LongSupplier millis) {
    this.log = log;
    this.intervalMs = intervalMs;
    this.millis = millis;
  }

  /** Logs {@code message}, or counts it when a line was logged less than an interval ago. */
  synchronized void skipped(String message) {
    long now = millis.getAsLong();
    if (logged && now - lastLineAt < intervalMs) {
      suppressed++;
      return;
    }
    if (suppressed > 0) {
      log.warn(
          "{} (skipped: errors.tolerance=all without a dead-letter destination; {} more bad records"
              + " were skipped since the last such line)",
          message,
          suppressed);
    } else {
      log.warn("{} (skipped: errors.tolerance=all without a dead-letter destination)", message);
    }
    logged = true;
    lastLineAt = now;
    suppressed = 0;
  }
}
