package io.streamhouse.connect.table.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.iceberg.BaseTransaction;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
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
  synchronized void commit(Consumer<List<TableCommit>> catalog) {
    List<TableCommit> commits = new ArrayList<>();
    for (Staged s : staged) {
      commits.add(
          tableCommit(s.id(), s.transaction().startMetadata(), s.transaction().currentMetadata()));
    }
    catalog.accept(commits); // a REST catalog's commitTransaction
    staged.forEach(s -> s.afterCommit().run());
  }

  /**
   * The commit of one table from {@code start} to {@code current}, which also requires the table's
   * current schema to be still the one of {@code start}. Iceberg asks that only of a commit that
   * changes the schema, but Nessie makes a new snapshot's schema the table's current one: a
   * snapshot planned before someone else's schema change would take that change back, and the
   * values written under its new columns would no longer be read. With the requirement, such a
   * commit fails instead and the round is staged again on the new schema.
   */
  static TableCommit tableCommit(TableIdentifier id, TableMetadata start, TableMetadata current) {
    TableCommit commit = TableCommit.create(id, start, current);
    boolean asserted =
        commit.requirements().stream()
            .anyMatch(r -> r instanceof UpdateRequirement.AssertCurrentSchemaID);
    if (asserted) {
      return commit;
    }
    List<UpdateRequirement> requirements = new ArrayList<>(commit.requirements());
    requirements.add(new UpdateRequirement.AssertCurrentSchemaID(start.currentSchemaId()));
    return new SchemaAssertingCommit(id, List.copyOf(requirements), commit.updates());
  }

  /** A table commit with the requirements Iceberg derived and the current schema's. */
  private record SchemaAssertingCommit(
      TableIdentifier identifier,
      List<UpdateRequirement> requirements,
      List<MetadataUpdate> updates)
      implements TableCommit {}

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
