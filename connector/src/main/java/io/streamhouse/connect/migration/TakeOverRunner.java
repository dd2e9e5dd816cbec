package io.streamhouse.connect.migration;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.monitor.PluginGauges;
import io.streamhouse.connect.table.TableFormat;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.util.Tasks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the take-over from the Apache Iceberg sink on task 0's coordinator thread, before the
 * coordinator's first round: one {@link TakeOverAttempt} after another, with Iceberg's {@link
 * Tasks} backing off exponentially between them (1 s, doubling, at most 30 s), until one succeeds
 * or the task stops. {@link #stop} ends the wait between attempts at once; an attempt under way
 * finishes first.
 */
public final class TakeOverRunner implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(TakeOverRunner.class);

  static final long MIN_BACKOFF_MS = 1_000;
  static final long MAX_BACKOFF_MS = 30_000;

  private final String connector;
  private final Runnable attempt;
  private final long minBackoffMs;
  private final long maxBackoffMs;

  private final Object lock = new Object();
  private Thread thread;
  private boolean attempting;
  private boolean stopped;

  /**
   * @param attempt one attempt of the take-over; null: there is nothing to take over
   */
  TakeOverRunner(String connector, Runnable attempt, long minBackoffMs, long maxBackoffMs) {
    this.connector = connector;
    this.attempt = attempt;
    this.minBackoffMs = minBackoffMs;
    this.maxBackoffMs = maxBackoffMs;
  }

  /**
   * The take-over task 0 runs for {@code config} with the coordinator's {@code formats}; one that
   * does nothing when {@code migration.apache-iceberg.control-topic} is not set.
   *
   * @throws org.apache.kafka.connect.errors.ConnectException when the take-over has no Iceberg
   *     catalog to commit to
   */
  public static TakeOverRunner of(
      StreamhouseSinkConfig config,
      Map<String, TableFormat> formats,
      PluginGauges gauges,
      String taskName) {
    Runnable attempt =
        config.apacheControlTopic().isEmpty()
            ? null
            : TakeOverAttempt.of(config, formats, gauges, taskName);
    return new TakeOverRunner(config.connectorName(), attempt, MIN_BACKOFF_MS, MAX_BACKOFF_MS);
  }

  @Override
  public void run() {
    synchronized (lock) {
      if (attempt == null || stopped) {
        return;
      }
      thread = Thread.currentThread();
    }
    try {
      Tasks.foreach(List.of(attempt))
          .retry(Integer.MAX_VALUE - 1)
          .exponentialBackoff(minBackoffMs, maxBackoffMs, Long.MAX_VALUE, 2.0)
          .shouldRetryTest(e -> !stopped())
          .run(this::attempt);
    } catch (RuntimeException e) {
      if (!stopped()) {
        throw e; // only an interruption other than stop() ends the retries
      }
      LOG.info("The task stopped before the take-over from the Apache sink was done");
    } finally {
      synchronized (lock) {
        thread = null;
        Thread.interrupted(); // stop() may have interrupted the wait: that is over
      }
    }
  }

  private void attempt(Runnable once) {
    synchronized (lock) {
      if (stopped) {
        throw new IllegalStateException("stopped");
      }
      attempting = true;
    }
    try {
      once.run();
    } catch (RuntimeException e) {
      if (!stopped()) {
        LOG.warn(
            "The take-over from the Apache sink failed; it is tried again, after at"
                + " most {} s: {}",
            maxBackoffMs / 1000,
            e.toString());
      }
      throw e;
    } finally {
      synchronized (lock) {
        attempting = false;
      }
    }
  }

  /** Ends the take-over: no attempt after the one under way, if any; its thread stops waiting. */
  public void stop() {
    synchronized (lock) {
      stopped = true;
      if (thread != null && !attempting) {
        thread.interrupt();
      }
    }
  }

  private boolean stopped() {
    synchronized (lock) {
      return stopped;
    }
  }
}
