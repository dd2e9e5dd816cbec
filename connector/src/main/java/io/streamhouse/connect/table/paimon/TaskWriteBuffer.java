package io.streamhouse.connect.table.paimon;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.paimon.memory.MemoryOwner;
import org.apache.paimon.memory.MemorySegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write buffer all Paimon writers of one task share ({@code paimon.write-buffer-bytes}), and
 * the registry of the table writes that use it. A table write registers when it opens ({@link
 * #open}) and leaves at its detach or close. When the pages run out, the bucket writer holding most
 * of them among the writes the put thread is using flushes its buffer (spilling it to {@code
 * paimon.spill-dir}), unless writes that were detached are being flushed by another thread: those
 * are never preempted, and the pages they give back are waited for first.
 */
final class TaskWriteBuffer {
  private static final Logger LOG = LoggerFactory.getLogger(TaskWriteBuffer.class);

  /** How long a writer waits for pages that a flush elsewhere gives back. */
  private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final String connector;
  private final SharedPages pages;
  private final Set<WriteMemory> live = ConcurrentHashMap.newKeySet();
  private final Set<WriteMemory> detached = ConcurrentHashMap.newKeySet();
  private final AtomicLong preemptions = new AtomicLong();
  private final AtomicLong overdrawn = new AtomicLong();

  TaskWriteBuffer(String connector, long bytes, int pageSize) {
    this.connector = connector;
    this.pages = new SharedPages(bytes, pageSize);
  }

  /**
   * The memory of a new table write, preemptable until it is detached; {@link WriteMemory#opened}
   * once its carried bucket writers are in place.
   */
  WriteMemory open() {
    WriteMemory memory = new WriteMemory(this, pages);
    live.add(memory);
    return memory;
  }

  void detached(WriteMemory memory) {
    if (live.remove(memory)) {
      detached.add(memory);
    }
  }

  void reattached(WriteMemory memory) {
    if (detached.remove(memory)) {
      live.add(memory);
    }
  }

  void released(WriteMemory memory) {
    live.remove(memory);
    detached.remove(memory);
  }

  /**
   * Flushes the buffers of the live bucket writers holding most pages, other than {@code
   * requester}, largest first, until a sixteenth of the budget is free (so that the next pages do
   * not each look through every writer again). Called on the thread that uses the live writes (the
   * put thread, or the control thread while it owns the task state), so no writer is flushed while
   * it writes.
   */
  boolean preempt(MemoryOwner requester) {
    List<WriteMemory.OwnerPages> candidates = new ArrayList<>();
    for (WriteMemory memory : live) {
      for (WriteMemory.OwnerPages owner : memory.owners()) {
        if (owner.owner != requester && owner.held() > 0) {
          candidates.add(owner);
        }
      }
    }
    if (candidates.isEmpty()) {
      return false;
    }
    candidates.sort(Comparator.comparingInt(WriteMemory.OwnerPages::held).reversed());
    int wanted = Math.max(1, pages.maxPages() / 16);
    int freed = 0;
    for (WriteMemory.OwnerPages owner : candidates) {
      if (freed >= wanted) {
        break;
      }
      int before = owner.held();
      try {
        owner.owner.flushMemory();
      } catch (Exception e) {
        throw new IllegalStateException(
            "Connector "
                + connector
                + ": cannot flush a Paimon write buffer to make room for another: "
                + e.getMessage(),
            e);
      }
      freed += before - owner.held();
      preemptions.incrementAndGet();
    }
    return true;
  }

  /**
   * A page that a flush on another thread gives back, waited for while detached writes are being
   * flushed there (cheaper than spilling a live buffer now and merging it again at its flush); null
   * when no pages are on their way back, or after {@link #WAIT_NANOS}.
   */
  MemorySegment pageGivenBack(SharedPages from) {
    try {
      return from.nextSegment(WAIT_NANOS, this::pagesComingBack);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** A page beyond the budget, for a writer that cannot start without one. */
  MemorySegment overdraw(SharedPages from) {
    if (overdrawn.getAndIncrement() % 10_000 == 0) {
      LOG.warn(
          "The Paimon write buffer ({} pages of {} bytes) is spent and no flush gives pages back; a "
              + "writer takes a page beyond it (paimon.write-buffer-bytes may be too small for the "
              + "number of tables and buckets written at once)",
          pages.maxPages(),
          pages.pageSize());
    }
    return from.overdraw();
  }

  private boolean pagesComingBack() {
    for (WriteMemory memory : detached) {
      if (memory.givingBackElsewhere()) {
        return true;
      }
    }
    return false;
  }

  long preemptions() {
    return preemptions.get();
  }

  long totalBytes() {
    return (long) pages.maxPages() * pages.pageSize();
  }

  long usedBytes() {
    return (long) pages.pagesOut() * pages.pageSize();
  }

  int liveWrites() {
    return live.size();
  }

  int detachedWrites() {
    return detached.size();
  }
}
