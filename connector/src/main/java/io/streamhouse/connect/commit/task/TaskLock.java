package io.streamhouse.connect.commit.task;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The one lock of a task's shared state ({@link TaskState}) and the condition its waits use: steps
 * run under it, waits end when their condition holds, a signal comes, or their deadline passes.
 *
 * <p>Fair: {@code put} takes it for every record and a record may open a writer under it (a Paimon
 * writer reads its bucket's files first); unfair, {@code put} took it back before the control
 * thread waiting for a commit request got it, for seconds after a restart at 200 tables.
 */
final class TaskLock {
  private final ReentrantLock lock = new ReentrantLock(true);

  /** Signalled when batches become pending or get decided, or a reset is asked for. */
  private final Condition changed = lock.newCondition();

  void lock() {
    lock.lock();
  }

  void unlock() {
    lock.unlock();
  }

  /** {@code step}, under the lock. */
  <T> T locked(Supplier<T> step) {
    lock.lock();
    try {
      return step.get();
    } finally {
      lock.unlock();
    }
  }

  /** {@code step}, under the lock. */
  void locked(Runnable step) {
    lock.lock();
    try {
      step.run();
    } finally {
      lock.unlock();
    }
  }

  /** Wakes the waits: what they wait for may hold now. Under the lock. */
  void signalAll() {
    changed.signalAll();
  }

  /**
   * Waits, under the lock, until {@code done} holds (checked at each signal) or {@code deadline}
   * (nanoTime) passes.
   */
  void awaitUntil(BooleanSupplier done, long deadline) throws InterruptedException {
    lock.lock();
    try {
      while (!done.getAsBoolean()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        changed.awaitNanos(left);
      }
    } finally {
      lock.unlock();
    }
  }
}
