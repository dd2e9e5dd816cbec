package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.table.CheckedBatches;
import io.streamhouse.connect.table.CommitLoop;
import io.streamhouse.connect.table.SnapshotKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.paimon.Snapshot;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.utils.SnapshotManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's commit of written records to a Paimon table, under invariant
 * <em>contiguity</em> (docs/architecture.md), which Paimon has no commit hook for: plan against the
 * latest snapshot of the connector's commit user, commit only as the snapshot right after the
 * planning read (checked as Paimon writes it, {@link ExpectedSnapshotEnvironment}), with Paimon's
 * own retry off (a snapshot-id race fails the commit and we plan again). Should another committer
 * of this connector still show up between the plan's snapshot and ours, it is reported as an error.
 * Each commit also plans the compaction jobs it calls for.
 */
final class PaimonDataCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(PaimonDataCommitter.class);

  private final String connector;
  private final String commitUser;
  private final SnapshotKeys keys;
  private final CoordinatorTables tables;
  private final PaimonWatermarks watermarks;
  private final PaimonCompactor compactor;

  PaimonDataCommitter(
      String connector,
      String commitUser,
      SnapshotKeys keys,
      CoordinatorTables tables,
      PaimonWatermarks watermarks,
      PaimonCompactor compactor) {
    this.connector = connector;
    this.commitUser = commitUser;
    this.keys = keys;
    this.tables = tables;
    this.watermarks = watermarks;
    this.compactor = compactor;
  }

  CommitOutcome commit(TableId id, long commitId, List<OfferedBatch> offered, boolean fullRound) {
    try {
      CoordinatorTables.Loaded loaded = tables.get(id);
      CheckedBatches<PaimonFileCheck.Entry> checked =
          CheckedBatches.check(
              connector,
              id,
              offered,
              new PaimonFileCheck(loaded.table(), PaimonFileCheck.Kind.WRITES));
      return commitWrites(id, loaded, commitId, checked.accepted(offered), checked, fullRound);
    } catch (RuntimeException e) {
      tables.forget(id);
      throw e;
    }
  }

  private CommitOutcome commitWrites(
      TableId id,
      CoordinatorTables.Loaded loaded,
      long commitId,
      List<OfferedBatch> batches,
      CheckedBatches<PaimonFileCheck.Entry> checked,
      boolean fullRound) {
    FileStoreTable table = loaded.table();
    SnapshotManager snapshots = table.snapshotManager();
    return CommitLoop.run(
        connector,
        id,
        commitId,
        batches,
        checked,
        fullRound,
        keys,
        new CommitLoop.Table() {
          private Long base;
          private Optional<Snapshot> own;

          @Override
          public Watermarks refresh() {
            base = snapshots.latestSnapshotId();
            own = tables.ownIfLatest(id, base).or(() -> watermarks.ownSnapshot(table));
            return watermarks.of(own);
          }

          @Override
          public CommitLoop.Committed commit(
              List<OfferedBatch> applying, Map<String, String> summary)
              throws CommitLoop.ConcurrentCommitException {
            long identifier =
                Math.max(commitId, own.map(Snapshot::commitIdentifier).orElse(0L) + 1);
            ManifestCommittable committable = new ManifestCommittable(identifier);
            List<CommitMessage> applied = new ArrayList<>();
            long records = 0;
            int files = 0;
            for (OfferedBatch batch : applying) {
              for (CommitMessage message :
                  PaimonFileCheck.messagesOf(checked.files(batch.batchId()))) {
                committable.addFileCommittable(message);
                applied.add(message);
                for (DataFileMeta file :
                    ((CommitMessageImpl) message).newFilesIncrement().newFiles()) {
                  records += file.rowCount();
                  files++;
                }
              }
            }
            summary.forEach(committable::addProperty);
            // Paimon has no commit hook: a snapshot that appeared since the plan fails the
            // commit here, and one that appears from now on as Paimon writes ours (the commit copy
            // expects the snapshot after the plan's, ExpectedSnapshotEnvironment); Paimon's own
            // retry is off, so a snapshot-id race fails instead of committing unchecked.
            if (!Objects.equals(snapshots.latestSnapshotId(), base)) {
              throw new CommitLoop.ConcurrentCommitException(
                  "snapshot " + snapshots.latestSnapshotId() + " appeared while planning", null);
            }
            try {
              tables.commitAfter(base, () -> commitOnce(loaded.retryOff(), committable));
            } catch (RuntimeException conflict) {
              throw new CommitLoop.ConcurrentCommitException(conflict.toString(), conflict);
            }
            Optional<Snapshot> ours = reportConcurrentCommitters(id, snapshots, base, identifier);
            ours.ifPresent(
                snapshot -> {
                  tables.ownSnapshot(id, snapshot);
                  watermarks.moveTag(id, table, snapshot);
                });
            return new CommitLoop.Committed(
                ours.map(Snapshot::id).orElse(-1L),
                records,
                files,
                compactor.jobsAfterCommit(id, table, applied));
          }
        });
  }

  /** {@code table}: a copy with Paimon's retry off ({@link CoordinatorTables.Loaded#retryOff}). */
  private void commitOnce(FileStoreTable table, ManifestCommittable committable) {
    TableCommitImpl commit = table.newCommit(commitUser);
    try (commit) {
      commit.commit(committable);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception closing) {
      LOG.warn("Closing a Paimon commit of {} failed: {}", table.fullName(), closing.toString());
    }
  }

  /**
   * Our snapshot (empty if it cannot be found); an error if another snapshot of our commit user
   * landed after {@code base}.
   */
  private Optional<Snapshot> reportConcurrentCommitters(
      TableId id, SnapshotManager snapshots, Long base, long identifier) {
    long first = base == null ? Snapshot.FIRST_SNAPSHOT_ID : base + 1;
    Long latest = snapshots.latestSnapshotId();
    Snapshot ours = null;
    for (long s = first; latest != null && s <= latest; s++) {
      Snapshot snapshot = snapshots.snapshot(s);
      if (!snapshot.commitUser().equals(commitUser)) {
        continue;
      }
      if (snapshot.commitIdentifier() == identifier && ours == null) {
        ours = snapshot;
      } else if (ours == null) {
        LOG.error(
            "Another committer of this connector wrote snapshot {} (identifier {}) of Paimon table "
                + "{} while commit {} was being applied: two coordinators ran at once, and the "
                + "batches both applied may be in the table twice",
            s,
            snapshot.commitIdentifier(),
            id,
            identifier);
      }
    }
    return Optional.ofNullable(ours);
  }
}
