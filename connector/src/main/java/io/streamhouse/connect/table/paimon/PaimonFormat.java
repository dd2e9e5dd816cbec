package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.config.CatalogSettings;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.CompactionResult;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.schema.EvolutionMode;
import io.streamhouse.connect.schema.FieldType;
import io.streamhouse.connect.schema.SchemaChange;
import io.streamhouse.connect.table.CheckedBatches;
import io.streamhouse.connect.table.CommitLoop;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.SchemaEvolutionLoop;
import io.streamhouse.connect.table.SnapshotKeys;
import io.streamhouse.connect.table.TableFormat;
import io.streamhouse.connect.table.TableNotFoundException;
import io.streamhouse.connect.table.TableWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TagCallback;
import org.apache.paimon.utils.SnapshotManager;
import org.apache.paimon.utils.TagManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Paimon tables of one catalog: writers (tasks) and the atomic, watermark-checked commit plus
 * compaction (coordinator). Everything is written and committed under one stable commit user per
 * connector, {@code streamhouse-<connector>}; its latest snapshot in a table carries the
 * connector's watermarks in the snapshot properties.
 */
public final class PaimonFormat implements TableFormat {
  private static final Logger LOG = LoggerFactory.getLogger(PaimonFormat.class);
  private static final int PAGE_SIZE = 64 * 1024;

  private final Catalog catalog;
  private final String connector;
  private final String commitUser;
  private final SnapshotKeys keys;
  private final long writeBufferBytes;
  private final Path spillDir;
  private final PaimonCompactor compactor;
  private final CoordinatorTables tables;
  private final Set<TableId> tagged = ConcurrentHashMap.newKeySet();
  private final java.util.Set<TableId> warnedWithoutIceberg = ConcurrentHashMap.newKeySet();
  private final io.streamhouse.connect.table.OrphanScanSchedule orphanScans =
      new io.streamhouse.connect.table.OrphanScanSchedule();
  private IOManager ioManager;
  private TaskWriteBuffer writeBuffer;

  public PaimonFormat(
      CatalogSettings settings, String connector, long writeBufferBytes, Path spillDir) {
    this.catalog = PaimonCatalogLoader.load(settings);
    this.connector = connector;
    this.commitUser = commitUser(connector);
    this.keys = new SnapshotKeys(connector);
    this.writeBufferBytes = writeBufferBytes;
    this.spillDir = spillDir;
    this.compactor = new PaimonCompactor(commitUser, this::ioManager);
    this.tables =
        new CoordinatorTables(this::table, CoordinatorTables.keepsTablesOf(settings.type()));
  }

  /** The commit user of a connector's writes and commits in every table. */
  public static String commitUser(String connector) {
    return "streamhouse-" + connector;
  }

  @Override
  public Optional<TableWriter> openWriter(
      TableId id, RouteSettings route, SinkRecord sample, FileBudget budget)
      throws RecordConversionException {
    Identifier identifier = identifier(id);
    if (!exists(identifier)) {
      // Bad input must not define a table: decode first (an unknown op, a delete without a key).
      ChangeDecoder.Change change =
          new ChangeDecoder(route.input(), route.primaryKey()).decode(sample);
      if (change.keyOnly()) {
        return Optional.empty(); // a delete for a table that does not exist yet deletes nothing
      }
      if (!route.autoCreate()) {
        throw TableNotFoundException.autoCreateOff(id, route);
      }
      PaimonTableCreator.create(catalog, identifier, route, sample);
    }
    FileStoreTable table = table(id);
    if (route.icebergCompatible()) {
      warnIfWithoutIcebergMetadata(id, table);
    }
    return Optional.of(new PaimonTableWriter(table, commitUser, route, ioManager(), writeBuffer()));
  }

  /**
   * The writer of a table whose schema changed numbers its rows above every row of the writer it
   * follows: those rows are in files not committed yet, which a new writer's restore would not see.
   */
  @Override
  public Optional<TableWriter> openWriterAfter(
      TableWriter previous, TableId id, RouteSettings route, SinkRecord sample, FileBudget budget)
      throws RecordConversionException {
    Optional<TableWriter> next = openWriter(id, route, sample, budget);
    if (previous instanceof PaimonTableWriter before
        && next.orElse(null) instanceof PaimonTableWriter after) {
      after.continueAfter(before);
    }
    return next;
  }

  /**
   * {@code iceberg-compatible} sets options on tables the connector creates; a table that existed
   * before is left alone, and said so once.
   */
  private void warnIfWithoutIcebergMetadata(TableId id, FileStoreTable table) {
    String storage = table.options().getOrDefault("metadata.iceberg.storage", "disabled");
    if (storage.equalsIgnoreCase("disabled") && warnedWithoutIceberg.add(id)) {
      LOG.warn(
          "Connector {}: route option iceberg-compatible is on, but Paimon table {} existed before "
              + "and has no Iceberg metadata (metadata.iceberg.storage is disabled); the connector "
              + "changes no options of existing tables: set them with ALTER TABLE ... SET (see the "
              + "README, 'Reading Paimon tables with Iceberg engines')",
          connector,
          id);
    }
  }

  private boolean exists(Identifier identifier) {
    try {
      catalog.getTable(identifier);
      return true;
    } catch (Catalog.TableNotExistException e) {
      return false;
    }
  }

  FileStoreTable table(TableId id) {
    try {
      return (FileStoreTable) catalog.getTable(identifier(id));
    } catch (Catalog.TableNotExistException e) {
      throw new TableNotFoundException("Paimon table " + id + " does not exist");
    }
  }

  @Override
  public void evolve(TableId id, FieldType.Struct row, EvolutionMode mode)
      throws RecordConversionException {
    SchemaEvolutionLoop.run(
        connector,
        id,
        () -> PaimonColumns.of(table(id)),
        row,
        mode,
        planned -> {
          List<org.apache.paimon.schema.SchemaChange> changes = new ArrayList<>();
          for (SchemaChange change : planned) {
            String[] path = change.path().toArray(String[]::new);
            if (change instanceof SchemaChange.AddColumn add) {
              changes.add(
                  org.apache.paimon.schema.SchemaChange.addColumn(
                      path, PaimonColumns.paimon(add.type(), false).copy(true), null, null));
            } else if (change instanceof SchemaChange.WidenColumn widen) {
              changes.add(
                  org.apache.paimon.schema.SchemaChange.updateColumnType(
                      path, PaimonColumns.paimon(widen.to(), false), true));
            } else {
              changes.add(
                  org.apache.paimon.schema.SchemaChange.updateColumnNullability(path, true));
            }
          }
          catalog.alterTable(identifier(id), changes, false);
        });
  }

  @Override
  public Watermarks watermarks(TableId id) {
    Identifier identifier = identifier(id);
    if (!exists(identifier)) {
      return Watermarks.EMPTY;
    }
    return watermarksOf(ownSnapshot(table(id)));
  }

  /**
   * The latest snapshot of the connector's commit user; when an expiry removed it (another writer's
   * snapshots on top, expired by someone else), the snapshot the connector's tag keeps a copy of.
   */
  private Optional<Snapshot> ownSnapshot(FileStoreTable table) {
    Optional<Snapshot> own = table.snapshotManager().latestSnapshotOfUser(commitUser);
    if (own.isPresent()) {
      return own;
    }
    return table
        .tagManager()
        .get(keys.tag())
        .map(org.apache.paimon.tag.Tag::trimToSnapshot)
        .filter(s -> commitUser.equals(s.commitUser()));
  }

  /**
   * Moves the connector's tag to {@code snapshot}, its latest commit: a tag keeps a copy of the
   * snapshot (its watermarks) and its files through any snapshot expiry. After the commit, not
   * atomic with it: until the tag moves, the new snapshot is the latest and cannot be expired yet.
   * Paimon's {@code replaceTag} by snapshot id, minus reading back the snapshot just written.
   */
  private void moveTag(TableId id, FileStoreTable table, Snapshot snapshot) {
    try {
      TagManager tags = table.tagManager();
      List<TagCallback> callbacks = table.store().createTagCallbacks(table);
      if (tagged.contains(id) || tags.tagExists(keys.tag())) {
        tags.replaceTag(snapshot, keys.tag(), null, callbacks);
      } else {
        tags.createTag(
            snapshot, keys.tag(), table.coreOptions().tagDefaultTimeRetained(), callbacks, false);
      }
      tagged.add(id);
    } catch (RuntimeException e) {
      tagged.remove(id);
      LOG.warn(
          "Connector {}: could not move tag {} of Paimon table {} to snapshot {}; its watermarks "
              + "rely on the snapshot alone until the next commit: {}",
          connector,
          keys.tag(),
          id,
          snapshot.id(),
          e.toString());
    }
  }

  private Watermarks watermarksOf(Optional<Snapshot> own) {
    return own.map(Snapshot::properties)
        .map(p -> p.get(keys.watermarks()))
        .map(Watermarks::decode)
        .orElse(Watermarks.EMPTY);
  }

  /**
   * Invariant <em>contiguity</em> (docs/architecture.md) for Paimon, which has no commit hook: plan
   * against the latest snapshot of the connector's commit user, commit only if no snapshot appeared
   * since the planning read, with Paimon's own retry off (a snapshot-id race fails the commit and
   * we plan again). A committer that slipped in between Paimon's read and ours is detected
   * afterwards and reported as an error.
   */
  @Override
  public CommitOutcome commit(
      TableId id, long commitId, List<OfferedBatch> offered, boolean fullRound) {
    try {
      return commit(id, tables.get(id), commitId, offered, fullRound);
    } catch (RuntimeException e) {
      tables.forget(id);
      throw e;
    }
  }

  private CommitOutcome commit(
      TableId id,
      CoordinatorTables.Loaded loaded,
      long commitId,
      List<OfferedBatch> offered,
      boolean fullRound) {
    CheckedBatches<PaimonFileCheck.Entry> checked =
        CheckedBatches.check(
            connector,
            id,
            offered,
            new PaimonFileCheck(loaded.table(), PaimonFileCheck.Kind.WRITES));
    return commitWrites(id, loaded, commitId, checked.accepted(offered), checked, fullRound);
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
            own = tables.ownIfLatest(id, base).or(() -> ownSnapshot(table));
            return watermarksOf(own);
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
            // Paimon has no commit hook: check that nobody committed since the plan, then commit
            // with Paimon's own retry off, so a snapshot-id race fails instead of committing
            // unchecked.
            if (!Objects.equals(snapshots.latestSnapshotId(), base)) {
              throw new CommitLoop.ConcurrentCommitException(
                  "snapshot " + snapshots.latestSnapshotId() + " appeared while planning", null);
            }
            try {
              commitOnce(loaded.retryOff(), committable);
            } catch (RuntimeException conflict) {
              throw new CommitLoop.ConcurrentCommitException(conflict.toString(), conflict);
            }
            Optional<Snapshot> ours = reportConcurrentCommitters(id, snapshots, base, identifier);
            ours.ifPresent(
                snapshot -> {
                  tables.ownSnapshot(id, snapshot);
                  moveTag(id, table, snapshot);
                });
            return new CommitLoop.Committed(
                ours.map(Snapshot::id).orElse(-1L),
                records,
                files,
                compactor.jobsAfterCommit(id, table, applied));
          }
        });
  }

  /**
   * Commits the results of compaction jobs, one commit each: a result that fails the file checks is
   * rejected and its files are left alone; a result whose merged files are gone (a second
   * compaction of its bucket won, a job handed out again after a rebalance) fails Paimon's conflict
   * check and is rejected; its files are left for the orphan cleanup, since a result may be sent
   * again after it was committed (a lost answer).
   */
  @Override
  public Map<String, BatchPlan.Decision> commitCompactions(
      TableId id, long commitId, List<CompactionResult> results) {
    try {
      return commitCompactions(id, tables.get(id), commitId, results);
    } catch (RuntimeException e) {
      tables.forget(id);
      throw e;
    }
  }

  private Map<String, BatchPlan.Decision> commitCompactions(
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
              .or(() -> ownSnapshot(table));
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
            "Connector {} committed the compaction of {} buckets of {} by task {} in {} ms",
            connector,
            messages.size(),
            id,
            batch.taskId(),
            (System.nanoTime() - start) / 1_000_000);
      } catch (Exception conflict) {
        decisions.put(batch.batchId(), BatchPlan.Decision.REJECT);
        LOG.warn(
            "Connector {}: the compaction of {} buckets of Paimon table {} by task {} was not committed (its "
                + "buckets are compacted again after their next write): {}",
            connector,
            messages.size(),
            id,
            batch.taskId(),
            conflict.toString());
      }
    }
    return decisions;
  }

  /**
   * Paimon expires snapshots and compacts in its own commits; what it leaves is files nothing
   * references (a task killed mid-batch, a rejected batch, a compaction result that was not
   * committed). Paimon's own orphan cleanup deletes those older than the minimum age, at most once
   * per {@link io.streamhouse.connect.table.OrphanScanSchedule} period.
   */
  @Override
  public io.streamhouse.connect.protocol.MaintenanceReport maintain(
      TableId id,
      io.streamhouse.connect.config.MaintenanceSettings settings,
      long deadlineNanos,
      io.streamhouse.connect.table.MaintenanceCheckpoints checkpoints) {
    long now = System.currentTimeMillis();
    if (!settings.cleansOrphans()
        || System.nanoTime() >= deadlineNanos
        || !orphanScans.due(id, now, settings.orphansMinAgeMs())) {
      return io.streamhouse.connect.protocol.MaintenanceReport.NONE;
    }
    try {
      org.apache.paimon.operation.CleanOrphanFilesResult result =
          new org.apache.paimon.operation.LocalOrphanFilesClean(
                  table(id), now - settings.orphansMinAgeMs(), false)
              .clean();
      return io.streamhouse.connect.protocol.MaintenanceReport.orphans(
          (int) result.getDeletedFileCount());
    } catch (java.io.IOException | java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("Cannot clean orphan files of " + id + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while cleaning orphan files of " + id, e);
    }
  }

  @Override
  public List<CompactionJob> pendingCompactions(TableId id) {
    if (!exists(identifier(id))) {
      return List.of();
    }
    return PaimonCompactor.jobsForLevelZero(table(id));
  }

  @Override
  public PreparedFiles compact(TableId id, List<CompactionJob> jobs) {
    FileStoreTable table = table(id);
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
        "Connector {}: compacted {} of {} buckets of {} into {} files in {} ms",
        connector,
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

  private void commitOnce(FileStoreTable table, ManifestCommittable committable) {
    TableCommitImpl commit = table.copy(Map.of("commit.max-retries", "0")).newCommit(commitUser);
    try (commit) {
      commit.commit(committable);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception closing) {
      LOG.warn(
          "Connector {}: closing a Paimon commit of {} failed: {}",
          connector,
          table.fullName(),
          closing.toString());
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
            "Connector {}: another committer of this connector wrote snapshot {} (identifier {}) of "
                + "Paimon table {} while commit {} was being applied: two coordinators ran at once, and "
                + "the batches both applied may be in the table twice",
            connector,
            s,
            snapshot.commitIdentifier(),
            id,
            identifier);
      }
    }
    return Optional.ofNullable(ours);
  }

  @Override
  public void discard(TableId id, List<PreparedFiles> prepared) {
    List<CommitMessage> messages = new ArrayList<>();
    for (PreparedFiles p : prepared) {
      try {
        messages.addAll(CommitMessagesCodec.decode(p.payloadVersion(), p.payload()));
      } catch (CommitMessagesCodec.InvalidCommitMessagesException e) {
        LOG.warn(
            "Connector {}: uncommitted files of Paimon table {} cannot be read, so not deleted: {}",
            connector,
            id,
            e.getMessage());
      }
    }
    // Paimon's abort deletes a compaction's output too; that output may be in the table already
    // (its result offered again after a lost answer), so compaction results are never deleted here.
    messages.removeIf(
        m -> m instanceof CommitMessageImpl impl && !impl.compactIncrement().isEmpty());
    try (TableCommitImpl commit = table(id).newCommit(commitUser)) {
      commit.abort(messages);
    } catch (Exception e) {
      LOG.warn("Could not delete uncommitted files of Paimon table {}: {}", id, e.toString());
    }
  }

  static Identifier identifier(TableId id) {
    if (id.namespace().size() != 1) {
      throw new IllegalArgumentException(
          "Paimon table "
              + id
              + " needs exactly one namespace level "
              + "(the database), got "
              + id.namespace());
    }
    return Identifier.create(id.namespace().get(0), id.name());
  }

  private synchronized IOManager ioManager() {
    if (ioManager == null) {
      try {
        Files.createDirectories(spillDir);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot create the Paimon spill directory " + spillDir, e);
      }
      ioManager = IOManager.create(spillDir.toString());
    }
    return ioManager;
  }

  /** The write buffer all Paimon writers of this task share. */
  synchronized TaskWriteBuffer writeBuffer() {
    if (writeBuffer == null) {
      writeBuffer = new TaskWriteBuffer(connector, writeBufferBytes, PAGE_SIZE);
    }
    return writeBuffer;
  }

  @Override
  public synchronized void close() {
    try {
      if (ioManager != null) {
        ioManager.close();
      }
      catalog.close();
    } catch (Exception e) {
      LOG.warn("Could not close Paimon catalog of connector {}: {}", connector, e.toString());
    }
  }
}
