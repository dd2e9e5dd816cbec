package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.CompactionResult;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.CheckedBatches;
import io.streamhouse.connect.table.Retries;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
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

  /** Coordinator: the table's latest snapshot id (a hint file read); empty without one. */
  OptionalLong latestSnapshotId(TableId id) {
    if (!catalog.exists(id)) {
      return OptionalLong.empty();
    }
    Long latest = tables.get(id).table().snapshotManager().latestSnapshotId();
    return latest == null ? OptionalLong.empty() : OptionalLong.of(latest);
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
    for (OfferedBatch batch : checked.accepted(offered)) {
      List<CommitMessage> messages = PaimonFileCheck.messagesOf(checked.files(batch.batchId()));
      decisions.put(
          batch.batchId(),
          messages.isEmpty()
              ? BatchPlan.Decision.APPLY // Paimon found nothing to merge
              : commitResult(id, commitId, batch.taskId(), messages));
    }
    return decisions;
  }

  /**
   * Commits one result, planned against the latest snapshot: its identifier follows the connector's
   * latest one and it carries that snapshot's watermarks. A snapshot that appears after the plan (a
   * data commit, or another coordinator's: this one may have been frozen between plan and commit)
   * means planning again, so identifiers never go backwards; Paimon's own retry, which would commit
   * the old plan on top of the new snapshot, is off.
   */
  private BatchPlan.Decision commitResult(
      TableId id, long commitId, int taskId, List<CommitMessage> messages) {
    long start = System.nanoTime();
    Optional<String> notCommitted;
    try {
      notCommitted =
          Retries.immediately(
              MAX_ATTEMPTS,
              Overtaken.class,
              attempt -> {
                Plan plan = plan(id, commitId);
                Attempt outcome = tryCommit(id, plan, messages);
                if (outcome.baseMoved()) {
                  throw new Overtaken(outcome.reason()); // planned again
                }
                if (outcome.committed()) {
                  LOG.info(
                      "Committed the compaction of {} buckets of {} by task {} as identifier {} in"
                          + " {} ms",
                      messages.size(),
                      id,
                      taskId,
                      plan.identifier(),
                      (System.nanoTime() - start) / 1_000_000);
                  return Optional.empty();
                }
                return Optional.of(outcome.reason());
              });
    } catch (Overtaken lastly) {
      notCommitted = Optional.of(lastly.getMessage());
    }
    if (notCommitted.isEmpty()) {
      return BatchPlan.Decision.APPLY;
    }
    LOG.warn(
        "The compaction of {} buckets of Paimon table {} by task {} was not committed (its "
            + "buckets are compacted again after their next write): {}",
        messages.size(),
        id,
        taskId,
        notCommitted.get());
    return BatchPlan.Decision.REJECT;
  }

  /** A snapshot appeared after the plan of a compaction commit. */
  private static final class Overtaken extends Exception {
    private static final long serialVersionUID = 1L;

    Overtaken(String reason) {
      super(reason, null, false, false); // an outcome, whose stack says nothing
    }
  }

  /** Attempts at one compaction commit whose planned snapshot was overtaken each time. */
  static final int MAX_ATTEMPTS = 3;

  /** What a compaction commit is planned on: the table's latest snapshot when it was read. */
  record Plan(Long base, long identifier, Map<String, String> watermarks) {}

  /** How one attempt ended; {@code baseMoved} when a snapshot appeared after the plan. */
  record Attempt(boolean committed, boolean baseMoved, String reason) {}

  Plan plan(TableId id, long commitId) {
    FileStoreTable table = tables.get(id).table();
    Long base = table.snapshotManager().latestSnapshotId();
    Optional<Snapshot> own = tables.ownIfLatest(id, base).or(() -> watermarks.ownSnapshot(table));
    return new Plan(
        base,
        Math.max(commitId, own.map(Snapshot::commitIdentifier).orElse(0L) + 1),
        // The compaction snapshot carries the watermarks of the commit before it.
        own.map(Snapshot::properties).orElse(Map.of()));
  }

  Attempt tryCommit(TableId id, Plan plan, List<CommitMessage> messages) {
    FileStoreTable table = tables.get(id).retryOff();
    if (!Objects.equals(table.snapshotManager().latestSnapshotId(), plan.base())) {
      return new Attempt(false, true, "a snapshot appeared after snapshot " + plan.base());
    }
    ManifestCommittable committable = new ManifestCommittable(plan.identifier());
    messages.forEach(committable::addFileCommittable);
    plan.watermarks().forEach(committable::addProperty);
    TableCommitImpl commit = table.newCommit(commitUser);
    try {
      // As for written records (PaimonDataCommitter): the snapshot must follow the plan's.
      tables.commitAfter(plan.base(), () -> commit.commit(committable));
      return new Attempt(true, false, "");
    } catch (RuntimeException conflict) {
      boolean moved = !Objects.equals(table.snapshotManager().latestSnapshotId(), plan.base());
      return new Attempt(false, moved, conflict.toString());
    } finally {
      try {
        commit.close();
      } catch (Exception closing) {
        LOG.warn("Closing a Paimon commit of {} failed: {}", table.fullName(), closing.toString());
      }
    }
  }
}
