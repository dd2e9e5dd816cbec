package io.streamhouse.connect.table.iceberg;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs each task on the thread that submits it. Iceberg's snapshot producers fan manifest reads and
 * writes out to a pool and poll the futures with a 10 ms sleep, so a commit of a few files costs
 * several such sleeps (about 30 ms per table, 8 s for a round over 1,000 tables). The coordinator
 * already commits tables in parallel ({@code commit.parallelism}); within one table's commit this
 * executor makes every such task done by the time it is polled.
 */
final class CallerRunsExecutor extends AbstractExecutorService {
  static final CallerRunsExecutor INSTANCE = new CallerRunsExecutor();

  private CallerRunsExecutor() {}

  @Override
  public void execute(Runnable task) {
    task.run();
  }

  /** Shared and stateless: it is never shut down. */
  @Override
  public void shutdown() {}

  @Override
  public List<Runnable> shutdownNow() {
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return false;
  }

  @Override
  public boolean isTerminated() {
    return false;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return false;
  }
}
