package io.streamhouse.connect.migration;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The take-over's retries: with backoff until an attempt succeeds, and none once stopped. */
class TakeOverRunnerTest {
  @Test
  void failedAttemptsAreRetriedUntilOneSucceeds() {
    AtomicInteger attempts = new AtomicInteger();
    TakeOverRunner runner =
        new TakeOverRunner(
            "sink",
            () -> {
              if (attempts.incrementAndGet() < 4) {
                throw new IllegalStateException("catalog unavailable");
              }
            },
            1,
            4);
    runner.run();
    assertThat(attempts).hasValue(4);
  }

  @Test
  void stoppingEndsTheWaitBetweenAttemptsAtOnceAndClearsTheInterrupt() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    CountDownLatch failedOnce = new CountDownLatch(1);
    TakeOverRunner runner =
        new TakeOverRunner(
            "sink",
            () -> {
              attempts.incrementAndGet();
              failedOnce.countDown();
              throw new IllegalStateException("Kafka unavailable");
            },
            60_000,
            60_000);
    AtomicBoolean interruptedAfter = new AtomicBoolean(true);
    Thread thread =
        new Thread(
            () -> {
              runner.run();
              interruptedAfter.set(Thread.currentThread().isInterrupted());
            });
    thread.start();
    assertThat(failedOnce.await(10, TimeUnit.SECONDS)).isTrue();
    long stopped = System.nanoTime();
    runner.stop();
    thread.join(Duration.ofSeconds(10).toMillis());
    assertThat(thread.isAlive()).isFalse();
    assertThat(Duration.ofNanos(System.nanoTime() - stopped)).isLessThan(Duration.ofSeconds(5));
    assertThat(attempts).hasValue(1);
    assertThat(interruptedAfter).as("the coordinator runs on after it").isFalse();
  }

  @Test
  void anAttemptUnderWayFinishesAndNoneFollowsWhenStopped() {
    AtomicInteger attempts = new AtomicInteger();
    TakeOverRunner[] runner = new TakeOverRunner[1];
    runner[0] =
        new TakeOverRunner(
            "sink",
            () -> {
              attempts.incrementAndGet();
              runner[0].stop();
              assertThat(Thread.currentThread().isInterrupted())
                  .as("an attempt is never interrupted")
                  .isFalse();
              throw new IllegalStateException("failed while stopping");
            },
            1,
            4);
    runner[0].run();
    assertThat(attempts).hasValue(1);

    TakeOverRunner stoppedFirst = new TakeOverRunner("sink", attempts::incrementAndGet, 1, 4);
    stoppedFirst.stop();
    stoppedFirst.run();
    assertThat(attempts).hasValue(1);
  }
}
