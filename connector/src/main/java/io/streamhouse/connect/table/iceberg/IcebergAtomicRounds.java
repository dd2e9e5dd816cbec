package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.config.CatalogSettings;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.AtomicRounds;
import io.streamhouse.connect.table.CommitLoop;
import java.util.List;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * Round-atomic commits of an Iceberg REST catalog: each table is planned and its snapshot applied
 * as {@link IcebergCommit} does, in a transaction that is staged rather than committed, and the
 * round's transactions go to the catalog in one multi-table commit. The catalog checks each table's
 * requirements (its branch and the connector's tag still where the plan read them) and applies all
 * tables or none; whether it does so atomically is the server's promise (Nessie, Apache Polaris and
 * Lakekeeper do; Iceberg's reference adapter commits table by table).
 */
final class IcebergAtomicRounds implements AtomicRounds {
  private final IcebergFormat format;
  private final RESTCatalog catalog;

  IcebergAtomicRounds(IcebergFormat format, RESTCatalog catalog) {
    this.format = format;
    this.catalog = catalog;
  }

  /** The catalog as a REST catalog, which alone can commit several tables in one call. */
  static RESTCatalog restCatalog(CatalogSettings settings, Catalog catalog) {
    if (catalog instanceof RESTCatalog rest) {
      return rest;
    }
    throw new IllegalArgumentException(
        settings
            + ": commit.atomic needs an Iceberg REST catalog (type=rest), not "
            + catalog.getClass().getName());
  }

  @Override
  public Round begin(long commitId) {
    StagedCommits staged = new StagedCommits();
    return new Round() {
      /** A publish that ended without the catalog's answer: the tables may hold the files. */
      private boolean maybeCommitted;

      @Override
      public CommitOutcome stage(TableId table, List<OfferedBatch> batches, boolean fullRound) {
        synchronized (format.commitLock(table)) {
          return IcebergCommit.run(format, table, commitId, batches, fullRound, staged);
        }
      }

      @Override
      public boolean changesAnyTable() {
        return !staged.isEmpty();
      }

      @Override
      public void publish() throws CommitLoop.ConcurrentCommitException {
        maybeCommitted = true;
        try {
          staged.commit(catalog::commitTransaction);
        } catch (CommitFailedException conflict) {
          maybeCommitted = false; // the catalog refused it: no table changed
          throw new CommitLoop.ConcurrentCommitException(conflict.getMessage(), conflict);
        }
      }

      /** Keeps the files when a publish may have landed (at worst orphans, cleaned later). */
      @Override
      public void abandon() {
        if (!maybeCommitted) {
          staged.discard();
        }
      }
    };
  }
}
