package io.streamhouse.connect.table.iceberg;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.relocated.com.google.common.util.concurrent.MoreExecutors;

/**
 * Iceberg work on the calling thread, never on Iceberg's static worker pool. That pool is shut down
 * by a JVM shutdown hook of its own, so on a worker's SIGTERM (a rolling restart) it refuses every
 * task while Connect is still stopping ours: a hand-over commit, a key index read or a maintenance
 * pass that used it failed with {@code RejectedExecutionException}. The caller's thread also spares
 * the pool's 10 ms polling of futures, about 30 ms per commit of a few files.
 */
public final class CallerThread {
  private CallerThread() {}

  /** A scan of {@code table} at {@code snapshotId} whose planning runs on the calling thread. */
  public static TableScan scan(Table table, long snapshotId) {
    return table
        .newScan()
        .useSnapshot(snapshotId)
        .planWith(MoreExecutors.newDirectExecutorService());
  }

  /**
   * {@code table}, seen through its {@link Table} interface only, whose scans plan on the calling
   * thread: for Iceberg code that makes its own scans and takes no executor (the rewrite planner).
   */
  public static Table scanning(Table table) {
    InvocationHandler handler =
        (proxy, method, args) -> {
          try {
            Object result = method.invoke(table, args);
            return method.getName().equals("newScan") && result instanceof TableScan scan
                ? scan.planWith(MoreExecutors.newDirectExecutorService())
                : result;
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    Class<?>[] interfaces =
        table instanceof HasTableOperations
            ? new Class<?>[] {Table.class, HasTableOperations.class}
            : new Class<?>[] {Table.class};
    return (Table) Proxy.newProxyInstance(Table.class.getClassLoader(), interfaces, handler);
  }

  /** {@code update}, reading and writing its manifests on the calling thread. */
  public static <T extends SnapshotUpdate<T>> T manifests(T update) {
    return update
        .scanManifestsWith(MoreExecutors.newDirectExecutorService())
        .writeManifestsWith(MoreExecutors.newDirectExecutorService(), 1);
  }
}
