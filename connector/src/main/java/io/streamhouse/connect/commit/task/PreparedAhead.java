package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.ConnectorThreads;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * The batch a task cut ahead of the commit request it expects ({@link AnswerSchedule}): its files
 * close on a thread of its own ({@code streamhouse-prepare-<task>}), without the task state {@code
 * put} needs, while the control thread goes on reading decisions and requests. The request then
 * waits only for what is left of the flush. Only the control thread calls it.
 */
final class PreparedAhead implements AutoCloseable {
  /**
   * A cut and its flush: the batches taken out and offered, when the cut was made ({@link
   * System#nanoTime()}) and how long closing took.
   */
  record Prepared(
      DetachedBatches detached, OfferedBatches offered, long cutAtNanos, long flushMs) {}

  private final ExecutorService thread;
  private Future<Prepared> preparing;

  PreparedAhead(String task) {
    this.thread =
        Executors.newSingleThreadExecutor(
            ConnectorThreads.factory("streamhouse-prepare-" + task.replace("%", "%%")));
  }

  /** True while the files of the last cut are still closing. */
  boolean busy() {
    return preparing != null && !preparing.isDone();
  }

  /** Closes and offers the files of a cut on the prepare thread. */
  void start(Supplier<Prepared> closeAndOffer) {
    preparing = thread.submit(closeAndOffer::get);
  }

  /**
   * Waits for the files of the last cut to close and takes its result: the request it was made for
   * has come. A failure to close is in {@link OfferedBatches#failure()}.
   */
  Prepared take() {
    Future<Prepared> cut = preparing;
    preparing = null;
    if (cut == null) {
      throw new IllegalStateException("no batch was cut ahead");
    }
    try {
      return cut.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the batch cut ahead was closing", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
  }

  /** The task stops: a cut still closing is abandoned (its offsets are read again). */
  @Override
  public void close() {
    thread.shutdownNow();
  }
}
