package io.streamhouse.connect.table.iceberg;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.BaseTransaction;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.rest.RESTCatalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The table commits of one atomic round: each table's {@link Transaction}, applied in memory and
 * not committed, then sent to the REST catalog together ({@code POST
 * /v1/{prefix}/transactions/commit}) with the requirements Iceberg derives from each table's base
 * (the branch and the connector's tag still at the snapshots the commit planned on). Thread-safe:
 * tables are staged in parallel.
 */
final class StagedCommits {
  private static final Logger LOG = LoggerFactory.getLogger(StagedCommits.class);

  private record Staged(
      TableIdentifier id, BaseTransaction transaction, FileIO io, Runnable afterCommit) {}

  private final List<Staged> staged = new ArrayList<>();

  /**
   * Adds a table's transaction, everything applied; {@code afterCommit} runs once it is visible.
   */
  synchronized void add(
      TableIdentifier id, Transaction transaction, FileIO io, Runnable afterCommit) {
    staged.add(new Staged(id, (BaseTransaction) transaction, io, afterCommit));
  }

  synchronized boolean isEmpty() {
    return staged.isEmpty();
  }

  /**
   * Commits every staged table in one catalog transaction, then runs what each table does after its
   * commit.
   *
   * @throws org.apache.iceberg.exceptions.CommitFailedException when a requirement failed: nothing
   *     changed
   */
  synchronized void commit(RESTCatalog catalog) {
    List<TableCommit> commits = new ArrayList<>();
    for (Staged s : staged) {
      commits.add(
          TableCommit.create(
              s.id(), s.transaction().startMetadata(), s.transaction().currentMetadata()));
    }
    catalog.commitTransaction(commits);
    staged.forEach(s -> s.afterCommit().run());
  }

  /**
   * Deletes the manifest lists and manifests the staged snapshots wrote: no table references them.
   * Data and delete files belong to the batches, which stay offered.
   */
  synchronized void discard() {
    for (Staged s : staged) {
      Snapshot snapshot = s.transaction().currentMetadata().currentSnapshot();
      if (snapshot == null
          || (s.transaction().startMetadata().currentSnapshot() != null
              && s.transaction().startMetadata().currentSnapshot().snapshotId()
                  == snapshot.snapshotId())) {
        continue;
      }
      try {
        for (ManifestFile manifest : snapshot.allManifests(s.io())) {
          if (manifest.snapshotId() != null && manifest.snapshotId() == snapshot.snapshotId()) {
            s.io().deleteFile(manifest.path());
          }
        }
        s.io().deleteFile(snapshot.manifestListLocation());
      } catch (RuntimeException e) {
        LOG.debug("Could not delete the staged manifests of {}: {}", s.id(), e.toString());
      }
    }
    staged.clear();
  }
}
