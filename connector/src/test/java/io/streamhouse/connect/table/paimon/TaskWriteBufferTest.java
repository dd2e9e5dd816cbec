package io.streamhouse.connect.table.paimon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.paimon.memory.MemoryOwner;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.memory.MemorySegmentPool;
import org.junit.jupiter.api.Test;

/** The task's shared Paimon write buffer with stand-ins for Paimon's bucket writers. */
class TaskWriteBufferTest {
  private static final int PAGE = 1024;

  /** A bucket writer's buffer: takes pages as it writes, gives them all back when flushed. */
  static final class Owner implements MemoryOwner {
    MemorySegmentPool pool;
    final List<MemorySegment> pages = new ArrayList<>();
    int flushes;

    @Override
    public void setMemoryPool(MemorySegmentPool pool) {
      this.pool = pool;
    }

    @Override
    public long memoryOccupancy() {
      return (long) pages.size() * PAGE;
    }

    @Override
    public void flushMemory() {
      flushes++;
      giveBack();
    }

    /** Takes {@code n} pages; false when the pool said no. */
    boolean take(int n) {
      for (int i = 0; i < n; i++) {
        MemorySegment page = pool.nextSegment();
        if (page == null) {
          return false;
        }
        pages.add(page);
      }
      return true;
    }

    void giveBack() {
      pool.returnAll(new ArrayList<>(pages));
      pages.clear();
    }
  }

  /** A write whose carried writers are in place, as the put thread writes to it. */
  private static WriteMemory opened(TaskWriteBuffer buffer) {
    WriteMemory memory = buffer.open();
    memory.opened();
    return memory;
  }

  private static Owner owner(WriteMemory memory) {
    Owner owner = new Owner();
    memory.notifyNewOwner(owner);
    return owner;
  }

  @Test
  void whenPagesRunOutTheLiveWriterHoldingMostFlushesAndTheBudgetHolds() {
    TaskWriteBuffer buffer = new TaskWriteBuffer("c", 10 * PAGE, PAGE);
    WriteMemory first = opened(buffer);
    WriteMemory second = opened(buffer);
    Owner small = owner(first);
    Owner large = owner(second);
    Owner requester = owner(second);
    assertThat(small.take(3)).isTrue();
    assertThat(large.take(7)).isTrue();

    assertThat(requester.take(2)).isTrue();

    assertThat(large.flushes).isOne();
    assertThat(small.flushes).isZero();
    assertThat(buffer.preemptions()).isOne();
    assertThat(buffer.usedBytes()).isEqualTo(5L * PAGE);
  }

  /**
   * While a write opens (its carried bucket writers are created, on the control thread at a
   * detach), Paimon's sort buffers take two pages each and give them back at once: those come from
   * beyond the budget rather than spill the live buffers of the tables not detached yet.
   */
  @Test
  void aWriteThatOpensTakesItsFirstPagesBeyondTheBudgetInsteadOfFlushingAnother() {
    TaskWriteBuffer buffer = new TaskWriteBuffer("c", 4 * PAGE, PAGE);
    Owner full = owner(opened(buffer));
    assertThat(full.take(4)).isTrue();
    WriteMemory opening = buffer.open();
    Owner created = owner(opening);

    assertThat(created.take(2)).isTrue();
    created.giveBack();
    opening.opened();

    assertThat(full.flushes).isZero();
    assertThat(buffer.usedBytes()).isEqualTo(4L * PAGE);
  }

  @Test
  void aWriterThatStillHoldsPagesSpillsItselfInsteadOfFlushingAnother() {
    TaskWriteBuffer buffer = new TaskWriteBuffer("c", 10 * PAGE, PAGE);
    WriteMemory memory = opened(buffer);
    Owner full = owner(memory);
    assertThat(full.take(10)).isTrue();

    assertThat(full.take(1)).as("told no: it spills its own buffer").isFalse();
    assertThat(buffer.preemptions()).isZero();
  }

  @Test
  void detachedWritersAreNeverPreemptedAndAWriterWaitsForThePagesTheirFlushGivesBack()
      throws Exception {
    TaskWriteBuffer buffer = new TaskWriteBuffer("c", 10 * PAGE, PAGE);
    WriteMemory old = opened(buffer);
    Owner detached = owner(old);
    assertThat(detached.take(10)).isTrue();
    old.detach();
    WriteMemory next = opened(buffer);
    Owner starting = owner(next);

    ExecutorService threads = Executors.newFixedThreadPool(2);
    CountDownLatch closing = new CountDownLatch(1);
    CountDownLatch flush = new CountDownLatch(1);
    CompletableFuture<Void> control =
        CompletableFuture.runAsync(
            () -> {
              old.closing();
              closing.countDown();
              try {
                flush.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              detached.giveBack();
              old.release();
            },
            threads);
    closing.await();
    AtomicReference<Thread> putThread = new AtomicReference<>();
    CompletableFuture<Boolean> put =
        CompletableFuture.supplyAsync(
            () -> {
              putThread.set(Thread.currentThread());
              return starting.take(2);
            },
            threads);
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                putThread.get() != null
                    && putThread.get().getState() == Thread.State.TIMED_WAITING);
    assertThat(put).as("waiting for the flush").isNotDone();
    flush.countDown();

    assertThat(put.get(10, TimeUnit.SECONDS)).isTrue();
    control.get(10, TimeUnit.SECONDS);
    threads.shutdown();
    assertThat(detached.flushes).as("never preempted").isZero();
    assertThat(buffer.usedBytes()).isEqualTo(2L * PAGE);
  }

  /**
   * The thread that detaches a write is the one that flushes it: a writer on another thread waits
   * for its pages even before the flush starts (the control thread may close other tables first).
   */
  @Test
  void aWriterWaitsForTheWriteAnotherThreadDetachedAndWillFlush() throws Exception {
    TaskWriteBuffer buffer = new TaskWriteBuffer("c", 4 * PAGE, PAGE);
    WriteMemory old = opened(buffer);
    Owner detached = owner(old);
    assertThat(detached.take(4)).isTrue();
    Owner starting = owner(opened(buffer));
    ExecutorService control = Executors.newSingleThreadExecutor();
    control.submit(old::detach).get(10, TimeUnit.SECONDS);

    ExecutorService putter = Executors.newSingleThreadExecutor();
    AtomicReference<Thread> putThread = new AtomicReference<>();
    CompletableFuture<Boolean> put =
        CompletableFuture.supplyAsync(
            () -> {
              putThread.set(Thread.currentThread());
              return starting.take(2);
            },
            putter);
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                putThread.get() != null
                    && putThread.get().getState() == Thread.State.TIMED_WAITING);
    control.submit(detached::giveBack).get(10, TimeUnit.SECONDS);

    assertThat(put.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(buffer.usedBytes()).as("no page beyond the budget").isEqualTo(2L * PAGE);
    control.shutdown();
    putter.shutdown();
  }

  @Test
  void aStartingWriterOverdrawsWhenNoPagesAreOnTheirWayBack() {
    TaskWriteBuffer buffer = new TaskWriteBuffer("c", 4 * PAGE, PAGE);
    WriteMemory old = opened(buffer);
    Owner detached = owner(old);
    assertThat(detached.take(4)).isTrue();
    old.detach(); // detached, but nobody flushes it on another thread yet
    Owner starting = owner(opened(buffer));

    assertThat(starting.take(2)).isTrue();
    assertThat(buffer.usedBytes()).isEqualTo(6L * PAGE);

    detached.giveBack();
    starting.giveBack();
    assertThat(buffer.usedBytes()).isZero();
  }

  @Test
  void pagesAClosedWriterNeverGaveBackAreForgottenAndNoWriteStaysRegistered() {
    TaskWriteBuffer buffer = new TaskWriteBuffer("c", 8 * PAGE, PAGE);
    for (int i = 0; i < 1_000; i++) {
      WriteMemory memory = opened(buffer);
      Owner aborted = owner(memory);
      assertThat(aborted.take(3)).isTrue();
      if (i % 2 == 0) {
        memory.detach();
      }
      memory.release(); // closed with its buffer: the pages are dropped, not given back
    }
    assertThat(buffer.usedBytes()).isZero();
    assertThat(buffer.liveWrites()).isZero();
    assertThat(buffer.detachedWrites()).isZero();
  }
}
