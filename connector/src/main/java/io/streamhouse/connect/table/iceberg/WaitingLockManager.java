package io.streamhouse.connect.table.iceberg;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.LockManager;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The commit lock of Hadoop catalogs in this worker: a Hadoop catalog takes a lock on the metadata
 * file it is about to create, so that two commits in one JVM never both rename onto the same
 * version. Iceberg's default in-process lock manager retries a taken lock every {@code
 * lock.acquire-interval-ms} (5 s) and cannot be configured for the catalogs that use it; when two
 * tasks created the same table at once, the loser's intake stood still for those 5 s (measured: a
 * task of a 2-task drain got its first record 5.8 s after its partitions). Here a waiter wakes when
 * the lock is released. Locks are held per JVM, whichever catalog instance took them, and closing a
 * catalog releases nobody else's; a waiter gives up after {@code lock.acquire-timeout-ms} (3
 * minutes by default), which fails that commit as Iceberg's own manager would.
 */
public final class WaitingLockManager implements LockManager {
  /** Owner of each held lock, by entity (the metadata file's path); guarded by itself. */
  private static final Map<String, String> HELD = new HashMap<>();

  private static int waiting;

  private long acquireTimeoutMs = CatalogProperties.LOCK_ACQUIRE_TIMEOUT_MS_DEFAULT;

  @Override
  public void initialize(Map<String, String> properties) {
    acquireTimeoutMs =
        Math.max(
            0,
            PropertyUtil.propertyAsLong(
                properties,
                CatalogProperties.LOCK_ACQUIRE_TIMEOUT_MS,
                CatalogProperties.LOCK_ACQUIRE_TIMEOUT_MS_DEFAULT));
  }

  @Override
  public boolean acquire(String entityId, String ownerId) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(acquireTimeoutMs);
    synchronized (HELD) {
      while (HELD.containsKey(entityId)) {
        long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (leftMs <= 0) {
          return false;
        }
        waiting++;
        try {
          HELD.wait(leftMs);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        } finally {
          waiting--;
        }
      }
      HELD.put(entityId, ownerId);
      return true;
    }
  }

  @Override
  public boolean release(String entityId, String ownerId) {
    synchronized (HELD) {
      // A catalog releases in a finally block even when it did not get the lock: only the owner's
      // release counts.
      if (!ownerId.equals(HELD.get(entityId))) {
        return false;
      }
      HELD.remove(entityId);
      HELD.notifyAll();
      return true;
    }
  }

  @Override
  public void close() {
    // Locks belong to commits in flight, not to the catalog that is closed.
  }

  /** Threads waiting in {@link #acquire} for a lock another holds, for tests. */
  static int waiting() {
    synchronized (HELD) {
      return waiting;
    }
  }
}
