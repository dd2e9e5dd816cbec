package io.streamhouse.connect.table.paimon;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.memory.MemorySegmentPool;

/**
 * The pages of one task's Paimon write buffer, safe for several threads: the put thread takes pages
 * while the control thread's flush of detached writers gives pages back. Pages are allocated on the
 * heap when first needed and kept for reuse up to the budget. A page given out beyond the budget
 * (an {@link #overdraw}) is dropped when it comes back.
 */
final class SharedPages implements MemorySegmentPool {
  private final int pageSize;
  private final int maxPages;
  private final ArrayDeque<MemorySegment> free = new ArrayDeque<>();

  /** Pages given out and not yet given back or forgotten. */
  private int out;

  SharedPages(long bytes, int pageSize) {
    this.pageSize = pageSize;
    this.maxPages = (int) Math.max(1, bytes / pageSize);
  }

  @Override
  public int pageSize() {
    return pageSize;
  }

  /** A page within the budget, or null when every page is out. */
  @Override
  public synchronized MemorySegment nextSegment() {
    MemorySegment page = free.poll();
    if (page == null && out < maxPages) {
      page = MemorySegment.allocateHeapMemory(pageSize);
    }
    if (page != null) {
      out++;
    }
    return page;
  }

  /**
   * A page within the budget, waiting up to {@code timeoutNanos} for one while {@code worthWaiting}
   * holds (pages are on their way back); null when none came.
   */
  synchronized MemorySegment nextSegment(long timeoutNanos, BooleanSupplier worthWaiting)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    MemorySegment page = nextSegment();
    while (page == null && worthWaiting.getAsBoolean()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return null;
      }
      TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
      page = nextSegment();
    }
    return page;
  }

  /** A page beyond the budget, for a writer that cannot even start without one. */
  synchronized MemorySegment overdraw() {
    out++;
    return MemorySegment.allocateHeapMemory(pageSize);
  }

  @Override
  public synchronized void returnAll(List<MemorySegment> pages) {
    out -= pages.size();
    for (MemorySegment page : pages) {
      if (out + free.size() < maxPages) {
        free.add(page);
      }
    }
    notifyAll();
  }

  /**
   * {@code pages} will never come back (a closed writer dropped its buffer): they count no more.
   */
  synchronized void forget(int pages) {
    out -= pages;
    notifyAll();
  }

  @Override
  public synchronized int freePages() {
    return Math.max(0, maxPages - out);
  }

  int maxPages() {
    return maxPages;
  }

  synchronized int pagesOut() {
    return out;
  }
}
