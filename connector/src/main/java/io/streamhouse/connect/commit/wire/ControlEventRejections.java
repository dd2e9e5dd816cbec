package io.streamhouse.connect.commit.wire;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the control events a task refused and logs them without flooding the log: the first one at
 * once, then at most one line per {@link #LOG_INTERVAL_MS} with the number passed over since.
 * Shared by a task's channels (task 0 has two); thread-safe.
 */
public final class ControlEventRejections {
  private static final Logger LOG = LoggerFactory.getLogger(ControlEventRejections.class);
  static final long LOG_INTERVAL_MS = 10_000;

  private final String task;
  private final AtomicLong total = new AtomicLong();
  private long lastLoggedAt = Long.MIN_VALUE;
  private long unlogged;

  public ControlEventRejections(String task) {
    this.task = task;
  }

  /**
   * For a second reader of the same control topic in the same task (task 0's coordinator): it sees
   * the very events the task's own reader counts and logs already.
   */
  public static ControlEventRejections silent() {
    return new ControlEventRejections(null);
  }

  /** An event at {@code topic}-{@code partition}@{@code offset} was refused. */
  public void rejected(String topic, int partition, long offset, InvalidControlEventException e) {
    if (task == null) {
      return;
    }
    total.incrementAndGet();
    long now = System.currentTimeMillis();
    long passedOver;
    synchronized (this) {
      if (lastLoggedAt != Long.MIN_VALUE && now - lastLoggedAt < LOG_INTERVAL_MS) {
        unlogged++;
        return;
      }
      lastLoggedAt = now;
      passedOver = unlogged;
      unlogged = 0;
    }
    LOG.warn(
        "Refused the control event at {}-{} offset {} ({}: {}){}",
        topic,
        partition,
        offset,
        e.reason(),
        e.getMessage(),
        passedOver == 0
            ? ""
            : "; " + passedOver + " more were refused since the last such message");
  }

  /** Every refused event so far. */
  public long total() {
    return total.get();
  }
}
