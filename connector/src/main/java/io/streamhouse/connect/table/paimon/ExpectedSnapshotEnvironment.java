package io.streamhouse.connect.table.paimon;

import java.util.List;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.catalog.RenamingSnapshotCommit;
import org.apache.paimon.catalog.SnapshotCommit;
import org.apache.paimon.operation.Lock;
import org.apache.paimon.partition.PartitionStatistics;
import org.apache.paimon.table.CatalogEnvironment;
import org.apache.paimon.table.PartitionModification;
import org.apache.paimon.utils.SnapshotManager;

/**
 * The catalog environment of the coordinator's commit copy of a Paimon table: a data commit lands
 * only as the snapshot right after the one its plan read ({@link #expecting}). Paimon has no commit
 * hook; the one point at which no other committer can slip in is its snapshot commit (the atomic
 * create of snapshot file N+1, or the catalog's commit), so the check that nobody committed since
 * the plan is made there, on the snapshot Paimon is about to write. A coordinator frozen after its
 * planning read and thawed after its successor committed thus fails its commit (and plans again)
 * instead of landing batches that its successor decided otherwise (and a compaction planned before
 * the successor's commit does not write a snapshot whose watermarks go back). Commits through the
 * copy outside {@link #expecting} are not checked, and only the first snapshot of a commit is
 * (Paimon may write a second, a compaction's, right after it).
 */
final class ExpectedSnapshotEnvironment extends CatalogEnvironment {
  private static final long serialVersionUID = 1L;

  /** The snapshot id the commit in progress on this thread must write first. */
  private static final ThreadLocal<Expectation> EXPECTED = new ThreadLocal<>();

  private static final class Expectation {
    final long snapshotId;
    boolean written; // the expected snapshot: later ones of the same commit are not checked
    long refused = -1;

    Expectation(long snapshotId) {
      this.snapshotId = snapshotId;
    }
  }

  private final CatalogEnvironment original;

  ExpectedSnapshotEnvironment(CatalogEnvironment original) {
    super(
        original.identifier(),
        original.uuid(),
        original.catalogLoader(),
        original.lockFactory(),
        original.lockContext(),
        original.catalogContext(),
        original.supportsVersionManagement(),
        false); // partitionModification() is the original's
    this.original = original;
  }

  /**
   * Runs {@code commit} (a Paimon commit through a table of this environment) so that its first
   * snapshot must be {@code snapshotId}; else Paimon's snapshot commit reports a conflict (again at
   * each retry), the commit fails and this throws {@link RefusedSnapshotException}.
   */
  static void expecting(long snapshotId, Runnable commit) {
    Expectation expectation = new Expectation(snapshotId);
    EXPECTED.set(expectation);
    try {
      commit.run();
    } catch (RuntimeException e) {
      if (expectation.refused >= 0) {
        throw new RefusedSnapshotException(snapshotId, expectation.refused, e);
      }
      throw e;
    } finally {
      EXPECTED.remove();
    }
  }

  /** The commit would have written another snapshot than the one after its plan's. */
  static final class RefusedSnapshotException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RefusedSnapshotException(long expected, long attempted, Throwable cause) {
      super(
          "the commit would have written snapshot "
              + attempted
              + ", not "
              + expected
              + ": another committer wrote since the plan",
          cause);
    }
  }

  @Override
  public SnapshotCommit snapshotCommit(SnapshotManager snapshots) {
    SnapshotCommit delegate = original.snapshotCommit(snapshots);
    return new Checked(
        delegate != null ? delegate : new RenamingSnapshotCommit(snapshots, Lock.empty()));
  }

  @Override
  public PartitionModification partitionModification() {
    return original.partitionModification();
  }

  @Override
  public CatalogEnvironment copy(Identifier identifier) {
    return new ExpectedSnapshotEnvironment(original.copy(identifier));
  }

  /** The original snapshot commit, after the check of the commit in progress on this thread. */
  private record Checked(SnapshotCommit delegate) implements SnapshotCommit {
    @Override
    public boolean commit(Snapshot snapshot, String branch, List<PartitionStatistics> statistics)
        throws Exception {
      Expectation expectation = EXPECTED.get();
      if (expectation == null || expectation.written) {
        return delegate.commit(snapshot, branch, statistics);
      }
      if (snapshot.id() != expectation.snapshotId) {
        expectation.refused = snapshot.id();
        return false; // as if another committer had created it: Paimon fails the commit
      }
      expectation.written = delegate.commit(snapshot, branch, statistics);
      return expectation.written;
    }

    @Override
    public void close() throws Exception {
      delegate.close();
    }
  }
}
