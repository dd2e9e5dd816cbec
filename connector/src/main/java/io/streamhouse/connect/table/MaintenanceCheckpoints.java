package io.streamhouse.connect.table;

/**
 * Moments inside a maintenance pass that fault injection can stop at: a crash there must lose
 * nothing and duplicate nothing.
 */
public interface MaintenanceCheckpoints {
  MaintenanceCheckpoints NONE =
      new MaintenanceCheckpoints() {
        @Override
        public void afterExpiryCommit() {}

        @Override
        public void beforeRewriteCommit() {}
      };

  /** An expiry is committed; the files it frees are not deleted yet. */
  void afterExpiryCommit();

  /** A compaction group's new files are written; the rewrite is not committed. */
  void beforeRewriteCommit();
}
