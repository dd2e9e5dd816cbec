package io.streamhouse.e2e;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or a deadline passes (the launcher's own readiness loop). */
final class Wait {
  private Wait() {}

  /**
   * Polls {@code condition} every {@code every} until it is true; before each poll {@code failFast}
   * may throw to abort (for example when the process being waited for died).
   */
  static void until(
      String what, Duration timeout, Duration every, Runnable failFast, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      failFast.run();
      if (condition.getAsBoolean()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Timed out after " + timeout + " waiting for " + what);
      }
      try {
        Thread.sleep(every.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while waiting for " + what, e);
      }
    }
  }
}
