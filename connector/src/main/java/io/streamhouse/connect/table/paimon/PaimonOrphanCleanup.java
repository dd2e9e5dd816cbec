package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.config.MaintenanceSettings;
import io.streamhouse.connect.protocol.MaintenanceReport;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.OrphanScanSchedule;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.apache.paimon.operation.CleanOrphanFilesResult;
import org.apache.paimon.operation.LocalOrphanFilesClean;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files of Paimon tables that nothing references: those of rejected batches, deleted at once
 * ({@link #discard}), and those left behind (a task killed mid-batch, a compaction result that was
 * not committed), deleted by Paimon's own orphan cleanup once they are old enough ({@link
 * #maintain}).
 */
final class PaimonOrphanCleanup {
  private static final Logger LOG = LoggerFactory.getLogger(PaimonOrphanCleanup.class);

  private final PaimonCatalogTables catalog;
  private final String commitUser;
  private final OrphanScanSchedule orphanScans = new OrphanScanSchedule();

  PaimonOrphanCleanup(PaimonCatalogTables catalog, String commitUser) {
    this.catalog = catalog;
    this.commitUser = commitUser;
  }

  /**
   * Paimon expires snapshots and compacts in its own commits; what it leaves is files nothing
   * references (a task killed mid-batch, a rejected batch, a compaction result that was not
   * committed). Paimon's own orphan cleanup deletes those older than the minimum age, at most once
   * per {@link OrphanScanSchedule} period.
   */
  MaintenanceReport maintain(TableId id, MaintenanceSettings settings, long deadlineNanos) {
    long now = System.currentTimeMillis();
    if (!settings.cleansOrphans()
        || System.nanoTime() >= deadlineNanos
        || !orphanScans.due(id, now, settings.orphansMinAgeMs())) {
      return MaintenanceReport.NONE;
    }
    try {
      CleanOrphanFilesResult result =
          new LocalOrphanFilesClean(catalog.table(id), now - settings.orphansMinAgeMs(), false)
              .clean();
      return MaintenanceReport.orphans((int) result.getDeletedFileCount());
    } catch (IOException | ExecutionException e) {
      throw new IllegalStateException("Cannot clean orphan files of " + id + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while cleaning orphan files of " + id, e);
    }
  }

  /** Deletes the files of rejected batches; never those of compaction results. */
  void discard(TableId id, List<PreparedFiles> prepared) {
    List<CommitMessage> messages = new ArrayList<>();
    for (PreparedFiles p : prepared) {
      try {
        messages.addAll(CommitMessagesCodec.decode(p.payloadVersion(), p.payload()));
      } catch (CommitMessagesCodec.InvalidCommitMessagesException e) {
        LOG.warn(
            "Uncommitted files of Paimon table {} cannot be read, so not deleted: {}",
            id,
            e.getMessage());
      }
    }
    // Paimon's abort deletes a compaction's output too; that output may be in the table already
    // (its result sent again after a lost answer), so compaction results are never deleted here.
    messages.removeIf(
        m -> m instanceof CommitMessageImpl impl && !impl.compactIncrement().isEmpty());
    try (TableCommitImpl commit = catalog.table(id).newCommit(commitUser)) {
      commit.abort(messages);
    } catch (Exception e) {
      LOG.warn("Could not delete uncommitted files of Paimon table {}: {}", id, e.toString());
    }
  }
}
