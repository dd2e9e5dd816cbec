package io.streamhouse.connect.commit.task;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Who owns a task's shared state ({@link TaskState}) at a time, and the condition its waits use.
 *
 * <p>The task's thread owns the state for the length of a {@code put} ({@link #lock}, once per
 * {@code put}): its steps then run without taking the lock again, and between records it hands the
 * state to the control thread only when that thread waits for it ({@link #yieldToWaiting}), taking
 * it back after the control thread's step. Outside {@code put}, and for the control thread, each
 * step owns the state for itself ({@link #locked}). Work that reads no shared state and may take
 * long (opening a table's writer, which reads its files or key index) runs with the state let go
 * ({@link #outside}). Why a second thread acts on the state at all: docs/architecture.md, "Who owns
 * the task state".
 *
 * <p>Fair: the control thread waiting for a commit request gets the state at the task thread's next
 * record, not after the task thread took it back again.
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

  /** Whether the calling thread owns the state: its steps need not take it. */
  boolean owned() {
    return lock.isHeldByCurrentThread();
  }

  /**
   * Between records of a {@code put}: when another thread waits for the state, lets it have the
   * state for its step and takes it back after. Returns whether it did.
   */
  boolean yieldToWaiting() {
    if (!lock.hasQueuedThreads()) {
      return false;
    }
    int holds = lock.getHoldCount();
    for (int i = 0; i < holds; i++) {
      lock.unlock();
    }
    for (int i = 0; i < holds; i++) {
      lock.lock();
    }
    return true;
  }

  /**
   * {@code step}, with the state let go if the calling thread owns it (and taken back after): for
   * work that reads nothing shared and may take long.
   */
  <T, E extends Exception> T outside(ThrowingSupplier<T, E> step) throws E {
    int holds = lock.getHoldCount();
    for (int i = 0; i < holds; i++) {
      lock.unlock();
    }
    try {
      return step.get();
    } finally {
      for (int i = 0; i < holds; i++) {
        lock.lock();
      }
    }
  }

  /** A step that may throw {@code E}. */
  @FunctionalInterface
  interface ThrowingSupplier<T, E extends Exception> {
    T get() throws E;
  }

  /** {@code step}, owning the state: at once if the calling thread owns it already. */
  <T, E extends Exception> T locked(ThrowingSupplier<T, E> step) throws E {
    if (lock.isHeldByCurrentThread()) {
      return step.get();
    }
    lock.lock();
    try {
      return step.get();
    } finally {
      lock.unlock();
    }
  }

  /** {@code step}, owning the state: at once if the calling thread owns it already. */
  void locked(Runnable step) {
    if (lock.isHeldByCurrentThread()) {
      step.run();
      return;
    }
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
