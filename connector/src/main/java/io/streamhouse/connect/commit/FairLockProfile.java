package io.streamhouse.connect.commit;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shows the JIT a contended fair lock once per JVM, before a task's write path is compiled.
 *
 * <p>{@link TaskState}'s fair lock is taken for every record, and the control thread takes it a few
 * times per commit interval. Fair locks are rare in a Connect worker, so when the JIT compiles the
 * write path with the lock inlined, the profile of {@code ReentrantLock$FairSync.initialTryLock}
 * has never seen a thread queued for a free lock, and the compiled code leaves that case out. The
 * first time the control thread then waits for the lock, the task thread's compiled write path is
 * thrown away ({@code unstable_if} in {@code AbstractQueuedSynchronizer.hasQueuedThreads}, JFR of a
 * 1-task drain: the write path compiled at 3.4 s, discarded at 4.6 s, compiled again by 6.5 s,
 * about 0.5 s of the compiler thread and 1.2 s of slower code while the drain was still warming
 * up). Two threads taking turns on a fair lock meet that case at almost every turn; the profile of
 * the JDK's lock methods is shared by every fair lock in the JVM, so the write path is then
 * compiled with it.
 */
final class FairLockProfile {
  private static final Logger LOG = LoggerFactory.getLogger(FairLockProfile.class);

  /** Turns per thread: enough for the lock methods to be compiled with profiling and profiled. */
  static final int TURNS = 20_000;

  private static final AtomicBoolean STARTED = new AtomicBoolean();

  private FairLockProfile() {}

  /**
   * Starts the two threads of the first call in this JVM (daemons, done in about 50 ms of CPU) and
   * returns at once; later calls do nothing. Returns whether this call started them.
   */
  static boolean startOnce() {
    if (!STARTED.compareAndSet(false, true)) {
      return false;
    }
    ReentrantLock lock = new ReentrantLock(true);
    CountDownLatch bothStarted = new CountDownLatch(2);
    Runnable turns =
        () -> {
          bothStarted.countDown();
          try {
            bothStarted.await(); // taking turns needs both: one alone never finds the other queued
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          }
          for (int i = 0; i < TURNS; i++) {
            lock.lock();
            lock.unlock();
          }
        };
    for (int i = 0; i < 2; i++) {
      Thread thread = new Thread(turns, "streamhouse-fair-lock-profile-" + i);
      thread.setDaemon(true);
      thread.setUncaughtExceptionHandler(
          (t, e) -> LOG.debug("Fair lock profile thread {} ended: {}", t.getName(), e.toString()));
      thread.start();
    }
    return true;
  }
}
