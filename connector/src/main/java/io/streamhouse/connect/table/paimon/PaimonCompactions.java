package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.CompactionResult;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.CheckedBatches;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.paimon.Snapshot;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction jobs of Paimon tables on both sides: a task runs the jobs it is handed ({@link
 * #compact}, with {@link PaimonCompactor}) and the coordinator commits their results ({@link
 * #commit}) and, once, finds the buckets a lost job left waiting ({@link #pending}).
 */
final class PaimonCompactions {
  private static final Logger LOG = LoggerFactory.getLogger(PaimonCompactions.class);

  private final PaimonCatalogTables catalog;
  private final String connector;
  private final String commitUser;
  private final CoordinatorTables tables;
  private final PaimonWatermarks watermarks;
  private final PaimonCompactor compactor;

  PaimonCompactions(
      PaimonCatalogTables catalog,
      String connector,
      String commitUser,
      CoordinatorTables tables,
      PaimonWatermarks watermarks,
      PaimonCompactor compactor) {
    this.catalog = catalog;
    this.connector = connector;
    this.commitUser = commitUser;
    this.tables = tables;
    this.watermarks = watermarks;
    this.compactor = compactor;
  }

  /** Coordinator: the compactions the buckets of {@code id} need as they are. */
  List<CompactionJob> pending(TableId id) {
    if (!catalog.exists(id)) {
      return List.of();
    }
    return PaimonCompactor.jobsForLevelZero(catalog.table(id));
  }

  /** Task: runs {@code jobs} and returns the result as commit messages for the coordinator. */
  PreparedFiles compact(TableId id, List<CompactionJob> jobs) {
    FileStoreTable table = catalog.table(id);
    List<PaimonCompactor.Job> decoded =
        jobs.stream().map(j -> PaimonCompactor.decode(table, j)).toList();
    long start = System.nanoTime();
    List<CommitMessage> messages;
    try {
      messages = compactor.compact(table, decoded);
    } catch (Exception e) {
      throw new IllegalStateException(
          "Connector "
              + connector
              + ": compaction of "
              + jobs.size()
              + " buckets of "
              + "Paimon table "
              + id
              + " failed: "
              + e,
          e);
    }
    long files = 0;
    long bytes = 0;
    long rows = 0;
    for (CommitMessage m : messages) {
      for (DataFileMeta file : ((CommitMessageImpl) m).compactIncrement().compactAfter()) {
        files++;
        bytes += file.fileSize();
        rows += file.rowCount();
      }
    }
    LOG.info(
        "Compacted {} of {} buckets of {} into {} files in {} ms",
        messages.size(),
        jobs.size(),
        id,
        files,
        (System.nanoTime() - start) / 1_000_000);
    return new PreparedFiles(
        CommitMessagesCodec.VERSION,
        CommitMessagesCodec.encode(messages),
        (int) files,
        rows,
        bytes);
  }

  /**
   * Coordinator: commits the results of compaction jobs, one commit each: a result that fails the
   * file checks is rejected and its files are left alone; a result whose merged files are gone (a
   * second compaction of its bucket won, a job handed out again after a rebalance) fails Paimon's
   * conflict check and is rejected; its files are left for the orphan cleanup, since a result may
   * be sent again after it was committed (a lost answer).
   */
  Map<String, BatchPlan.Decision> commit(
      TableId id, long commitId, List<CompactionResult> results) {
    try {
      return commit(id, tables.get(id), commitId, results);
    } catch (RuntimeException e) {
      tables.forget(id);
      throw e;
    }
  }

  private Map<String, BatchPlan.Decision> commit(
      TableId id, CoordinatorTables.Loaded loaded, long commitId, List<CompactionResult> results) {
    // The file check reads batches: a result is one without offsets, checked as a compaction.
    List<OfferedBatch> offered =
        results.stream()
            .map(r -> new OfferedBatch(r.jobId(), r.taskId(), Map.of(), r.files(), -1))
            .toList();
    CheckedBatches<PaimonFileCheck.Entry> checked =
        CheckedBatches.check(
            connector,
            id,
            offered,
            new PaimonFileCheck(loaded.table(), PaimonFileCheck.Kind.COMPACTION_RESULTS));
    Map<String, BatchPlan.Decision> decisions = new LinkedHashMap<>(checked.withRefused(Map.of()));
    FileStoreTable table = loaded.table();
    for (OfferedBatch batch : checked.accepted(offered)) {
      long start = System.nanoTime();
      Optional<Snapshot> own =
          tables
              .ownIfLatest(id, table.snapshotManager().latestSnapshotId())
              .or(() -> watermarks.ownSnapshot(table));
      ManifestCommittable committable =
          new ManifestCommittable(
              Math.max(commitId, own.map(Snapshot::commitIdentifier).orElse(0L) + 1));
      List<CommitMessage> messages = PaimonFileCheck.messagesOf(checked.files(batch.batchId()));
      if (messages.isEmpty()) {
        decisions.put(batch.batchId(), BatchPlan.Decision.APPLY); // Paimon found nothing to merge
        continue;
      }
      messages.forEach(committable::addFileCommittable);
      // The compaction snapshot carries the watermarks of the commit before it.
      own.map(Snapshot::properties).ifPresent(p -> p.forEach(committable::addProperty));
      try (TableCommitImpl commit = table.newCommit(commitUser)) {
        commit.commit(committable);
        decisions.put(batch.batchId(), BatchPlan.Decision.APPLY);
        LOG.info(
            "Committed the compaction of {} buckets of {} by task {} in {} ms",
            messages.size(),
            id,
            batch.taskId(),
            (System.nanoTime() - start) / 1_000_000);
      } catch (Exception conflict) {
        decisions.put(batch.batchId(), BatchPlan.Decision.REJECT);
        LOG.warn(
            "The compaction of {} buckets of Paimon table {} by task {} was not committed (its "
                + "buckets are compacted again after their next write): {}",
            messages.size(),
            id,
            batch.taskId(),
            conflict.toString());
      }
    }
    return decisions;
  }
}
