package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.ConnectorThreads;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.table.DetachedFiles;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * Closes the files a task took out of its writers, several tables at a time: closing writes the
 * rows a table held and the files' last pages and footers (CPU on a local disk, mostly waiting for
 * uploads on an object store), and a task answering a commit request for hundreds of tables must
 * not close them one after another. With a parallelism of one, the caller's thread closes them.
 */
final class BatchCloser implements AutoCloseable {
  /** What closing gave: the closed files in the batches' order, and the first failure if any. */
  record Closed<T>(Map<T, PreparedFiles> files, RuntimeException failure) {}

  private final ExecutorService threads;

  BatchCloser(String task, int parallelism) {
    this.threads =
        parallelism <= 1
            ? null
            : Executors.newFixedThreadPool(
                parallelism,
                ConnectorThreads.factory("streamhouse-close-" + task.replace("%", "%%") + "-%d"));
  }

  /** Closes the files of every batch; a batch whose files fail is left out of the result. */
  <T> Closed<T> close(List<T> batches, Function<T, DetachedFiles> filesOf) {
    Map<T, PreparedFiles> closed = new LinkedHashMap<>();
    RuntimeException failure = null;
    if (threads == null || batches.size() < 2) {
      for (T batch : batches) {
        try {
          closed.put(batch, filesOf.apply(batch).close());
        } catch (RuntimeException e) {
          failure = failure == null ? e : failure;
        }
      }
      return new Closed<>(closed, failure);
    }
    List<Future<PreparedFiles>> closing = new ArrayList<>(batches.size());
    for (T batch : batches) {
      DetachedFiles files = filesOf.apply(batch);
      closing.add(threads.submit(files::close));
    }
    for (int i = 0; i < batches.size(); i++) {
      try {
        closed.put(batches.get(i), closing.get(i).get());
      } catch (ExecutionException e) {
        RuntimeException cause =
            e.getCause() instanceof RuntimeException r
                ? r
                : new IllegalStateException(e.getCause());
        failure = failure == null ? cause : failure;
      } catch (InterruptedException e) {
        // The task stops: files still closing are not offered (the orphan cleanup deletes them).
        closing.forEach(f -> f.cancel(false));
        Thread.currentThread().interrupt();
        return new Closed<>(closed, new IllegalStateException("interrupted while closing", e));
      }
    }
    return new Closed<>(closed, failure);
  }

  @Override
  public void close() {
    if (threads != null) {
      threads.shutdownNow();
    }
  }
}
