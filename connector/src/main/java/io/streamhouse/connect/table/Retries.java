package io.streamhouse.connect.table;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.util.Tasks;

/**
 * The connector's one way to try something again, on Iceberg's {@link Tasks}: an attempt runs until
 * it returns, again after each failure of the kind to retry, at most a given number of times; when
 * they run out the last such failure is thrown. Any other exception ends it at once. Callers log
 * their failed attempts themselves, naming connector and table ({@code Tasks} logs each retry with
 * a backoff too).
 */
public final class Retries {
  private Retries() {}

  /**
   * One attempt.
   *
   * @param <R> what it gives
   * @param <E> what it throws, among them the failure to retry
   */
  @FunctionalInterface
  public interface Attempt<R, E extends Exception> {
    /**
     * @param attempt 1 for the first attempt, then 2, 3, ...
     */
    R run(int attempt) throws E;
  }

  /**
   * Runs {@code attempt} again at once after each {@code retryOn}, at most {@code maxAttempts}
   * times: for a race lost to another writer, where the next attempt reads the table afresh. Not
   * through {@code Tasks}, which logs every retry as a warning with its stack trace: a lost race is
   * how optimistic commits work, not a failure to warn of; the callers log it at their level.
   */
  public static <R, E extends Exception> R immediately(
      int maxAttempts, Class<E> retryOn, Attempt<R, E> attempt) throws E {
    for (int n = 1; ; n++) {
      try {
        return attempt.run(n);
      } catch (Exception e) {
        if (!retryOn.isInstance(e) || n >= maxAttempts) {
          throw e;
        }
      }
    }
  }

  /**
   * Runs {@code attempt} again after each {@code retryOn}, at most {@code maxAttempts} times,
   * waiting {@code firstWaitMs} after the first failure and twice as long after each next, at most
   * {@code maxWaitMs} (plus up to a tenth at random, so that racing callers spread out).
   */
  public static <R, E extends Exception> R withBackoff(
      int maxAttempts, long firstWaitMs, long maxWaitMs, Class<E> retryOn, Attempt<R, E> attempt)
      throws E {
    AtomicInteger attempts = new AtomicInteger();
    AtomicReference<R> result = new AtomicReference<>();
    Tasks.foreach(List.of(attempt))
        .retry(maxAttempts - 1)
        .onlyRetryOn(retryOn)
        .exponentialBackoff(firstWaitMs, maxWaitMs, Long.MAX_VALUE, 2.0)
        .run(once -> result.set(once.run(attempts.incrementAndGet())), retryOn);
    return result.get();
  }
}
