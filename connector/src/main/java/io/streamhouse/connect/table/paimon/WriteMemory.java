package io.streamhouse.connect.table.paimon;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.paimon.memory.MemoryOwner;
import org.apache.paimon.memory.MemoryPoolFactory;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.memory.MemorySegmentPool;

/**
 * The memory of one Paimon table write (its bucket writers) in the task's {@link TaskWriteBuffer}.
 * Paimon's {@link MemoryPoolFactory} would keep every table write it ever served as an owner
 * ({@code addOwners} concatenates them for good) and could preempt a writer that another thread is
 * flushing; this one registers nothing with Paimon and leaves preemption to the task buffer, which
 * knows which writes the put thread is using.
 *
 * <p>Life: live (the put thread writes, its writers may be preempted) until {@link #detach}, then
 * flushed and closed on another thread, then {@link #release}d.
 */
final class WriteMemory extends MemoryPoolFactory {
  /** Paimon's sort buffer cannot start with fewer pages. */
  static final int MIN_PAGES = 3;

  private final TaskWriteBuffer buffer;
  private final SharedPages pages;
  private final Collection<OwnerPages> owners = new ConcurrentLinkedQueue<>();
  private volatile boolean live = true;
  private volatile boolean opening = true;
  private volatile Thread closingThread;

  WriteMemory(TaskWriteBuffer buffer, SharedPages pages) {
    super(pages);
    this.buffer = buffer;
    this.pages = pages;
  }

  /** Paimon registers each table write here; the task buffer knows its writes already. */
  @Override
  public MemoryPoolFactory addOwners(Iterable<MemoryOwner> ignored) {
    return this;
  }

  /** A new bucket writer of this write: its pages come from the task's shared pages. */
  @Override
  public void notifyNewOwner(MemoryOwner owner) {
    OwnerPages pool = new OwnerPages(owner);
    owners.add(pool);
    owner.setMemoryPool(pool);
  }

  @Override
  public Iterable<MemoryOwner> memoryOwners() {
    return owners.stream().map(o -> o.owner).toList();
  }

  @Override
  public long usedBufferSize() {
    return (long) pagesHeld() * pages.pageSize();
  }

  @Override
  public long totalBufferSize() {
    return (long) pages.maxPages() * pages.pageSize();
  }

  @Override
  public long bufferPreemptCount() {
    return buffer.preemptions();
  }

  /**
   * The write's carried bucket writers are in place. Until then, a writer being created takes its
   * pages beyond the budget rather than spill another write's buffer: Paimon's sort buffer takes
   * two pages when it is created and gives them back at once.
   */
  void opened() {
    opening = false;
  }

  /**
   * The put thread is done with this write: its writers are no longer preempted. The thread that
   * detaches it is taken to be the one that flushes it (the task's control thread answering a
   * commit request, or the put thread handing its files over), until {@link #closing} says which.
   */
  void detach() {
    live = false;
    closingThread = Thread.currentThread();
    buffer.detached(this);
  }

  /** A detach that could not carry the write's bucket writers: the put thread goes on with it. */
  void reattach() {
    closingThread = null;
    live = true;
    buffer.reattached(this);
  }

  /** The current thread flushes this write now: pages it holds are on their way back. */
  void closing() {
    closingThread = Thread.currentThread();
  }

  /** Whether a thread other than the current one gives this write's pages back. */
  boolean givingBackElsewhere() {
    Thread closer = closingThread;
    return closer != null && closer != Thread.currentThread() && pagesHeld() > 0;
  }

  /**
   * The write is closed: pages its writers still hold (a closed Paimon writer drops its buffer
   * without giving them back) count no more.
   */
  void release() {
    live = false;
    buffer.released(this);
    for (OwnerPages owner : owners) {
      pages.forget(owner.takeAll());
    }
    owners.clear();
  }

  int pagesHeld() {
    int held = 0;
    for (OwnerPages owner : owners) {
      held += owner.held;
    }
    return held;
  }

  Collection<OwnerPages> owners() {
    return owners;
  }

  /** The pages of one bucket writer. */
  final class OwnerPages implements MemorySegmentPool {
    final MemoryOwner owner;
    private volatile int held;

    OwnerPages(MemoryOwner owner) {
      this.owner = owner;
    }

    int held() {
      return held;
    }

    private synchronized int takeAll() {
      int all = held;
      held = 0;
      return all;
    }

    @Override
    public int pageSize() {
      return pages.pageSize();
    }

    /**
     * A page from the shared budget. When none is free: while the write opens, a page beyond the
     * budget (given back at once); else a page that a flush on another thread gives back, if one is
     * coming; else a live write preempts the writers holding most pages; else a writer that still
     * has pages is told no (it spills its own buffer, as Paimon's writers do), and one that cannot
     * start without a page overdraws the budget by the few pages it needs.
     */
    @Override
    public MemorySegment nextSegment() {
      MemorySegment page = pages.nextSegment();
      if (page == null && opening) {
        page = pages.overdraw();
      }
      if (page == null) {
        page = buffer.pageGivenBack(pages);
      }
      if (page == null && live && buffer.preempt(owner)) {
        page = pages.nextSegment();
      }
      if (page == null && held < MIN_PAGES) {
        page = buffer.overdraw(pages);
      }
      if (page != null) {
        synchronized (this) {
          held++;
        }
      }
      return page;
    }

    @Override
    public void returnAll(List<MemorySegment> memory) {
      synchronized (this) {
        held -= memory.size();
      }
      pages.returnAll(memory);
    }

    /** What Paimon checks before it starts a buffer: this writer's share, as Paimon's pool says. */
    @Override
    public int freePages() {
      return pages.maxPages() - held;
    }
  }
}
