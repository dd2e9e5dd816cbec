package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.config.CatalogSettings;
import io.streamhouse.connect.config.MaintenanceSettings;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.decode.ChangeDecoder;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.MaintenanceReport;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.schema.EvolutionMode;
import io.streamhouse.connect.schema.FieldType;
import io.streamhouse.connect.table.AtomicRounds;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.MaintenanceCheckpoints;
import io.streamhouse.connect.table.OrphanScanSchedule;
import io.streamhouse.connect.table.SchemaEvolutionLoop;
import io.streamhouse.connect.table.SnapshotKeys;
import io.streamhouse.connect.table.TableFormat;
import io.streamhouse.connect.table.TableNotFoundException;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.table.WriteAfter;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Iceberg append tables of one catalog: writers, watermarks and the atomic commit. */
public final class IcebergFormat implements TableFormat {
  private static final Logger LOG = LoggerFactory.getLogger(IcebergFormat.class);

  private final Catalog catalog;
  private final String connector;
  private final int taskId;
  private final SnapshotKeys keys;

  /** Set when the catalog commits each round's tables in one transaction (REST catalogs only). */
  private final Optional<AtomicRounds> atomicRounds;

  /** Listing a table's folders costs more than the rest of a pass: at most once an hour. */
  private final OrphanScanSchedule orphanScans = new OrphanScanSchedule();

  /** Loaded tables; the coordinator commits several tables at once, each from one thread. */
  private final Map<TableId, Table> tables = new ConcurrentHashMap<>();

  /**
   * Held by each commit to a table and by a compaction of a table with position deletes: such a
   * compaction would otherwise lose its validation to every commit that deletes rows of the files
   * it rewrites, that is nearly every commit of a busy primary-key table.
   */
  private final Map<TableId, Object> commitLocks = new ConcurrentHashMap<>();

  /** The converters of this task's append tables, kept across rounds. */
  private final IcebergConverters converters = new IcebergConverters();

  private final UnseenKeyHistory unseenKeys = new UnseenKeyHistory();

  /**
   * This task's schema changes, which the coordinator commits with the data that needs them: on a
   * REST catalog, where a task's own schema commit could be lost to a snapshot the coordinator
   * planned before it (Nessie makes a snapshot's schema the table's current one), and where
   * round-atomic commits put schema and data in one catalog transaction. Empty: tasks commit their
   * changes themselves.
   */
  private final Optional<PendingSchemas> pendingSchemas;

  public IcebergFormat(CatalogSettings settings, String connector, int taskId) {
    this.catalog = IcebergCatalogLoader.load(settings);
    this.connector = connector;
    this.taskId = taskId;
    this.keys = new SnapshotKeys(connector);
    this.atomicRounds =
        settings.atomicCommits()
            ? Optional.of(
                new IcebergAtomicRounds(this, IcebergAtomicRounds.restCatalog(settings, catalog)))
            : Optional.empty();
    this.pendingSchemas =
        catalog instanceof RESTCatalog ? Optional.of(new PendingSchemas()) : Optional.empty();
  }

  @Override
  public Optional<TableWriter> openWriter(
      TableId id, RouteSettings route, SinkRecord sample, FileBudget budget)
      throws RecordConversionException {
    if (!route.icebergKeyed()) {
      if (sample.value() == null && !catalog.tableExists(identifier(id))) {
        return Optional.empty(); // a tombstone adds nothing to an append table
      }
      Table loaded = loadOrCreate(id, route, sample);
      loaded.refresh();
      Table table = writable(id, loaded);
      return Optional.of(
          new IcebergTableWriter(table, taskId, budget, route, converters.forTable(id, table)));
    }
    if (!catalog.tableExists(identifier(id))) {
      // Bad input must not define a table, and a delete of a missing table deletes nothing.
      ChangeDecoder.Change change =
          new ChangeDecoder(route.input(), route.primaryKey()).decode(sample);
      if (change.kind() == ChangeDecoder.Kind.DELETE) {
        return Optional.empty();
      }
    }
    Table loaded = loadOrCreate(id, route, sample);
    loaded.refresh();
    Table table = writable(id, loaded);
    return Optional.of(KeyedWriterStart.open(this, table, id, route, budget, taskId));
  }

  /**
   * After a schema change, a keyed table's new writer goes on with the key index of the previous
   * one (which holds the positions of its uncommitted rows); an append table's starts afresh.
   */
  @Override
  public Optional<TableWriter> openWriterAfter(
      TableWriter previous, TableId id, RouteSettings route, SinkRecord sample, FileBudget budget)
      throws RecordConversionException {
    if (!(previous instanceof IcebergKeyedTableWriter keyed)) {
      return openWriter(id, route, sample, budget);
    }
    Table table = writable(id, table(id));
    return Optional.of(
        new IcebergKeyedTableWriter(table, taskId, budget, route, keyed.base(), keys));
  }

  /** {@code table} as this task's writers see it ({@link PendingSchemas}). */
  private Table writable(TableId id, Table table) {
    return pendingSchemas.map(p -> p.writable(id, table)).orElse(table);
  }

  /** The keys the coordinator's keyed commits inserted unseen, to check later batches against. */
  UnseenKeyHistory unseenKeys() {
    return unseenKeys;
  }

  private Table loadOrCreate(TableId id, RouteSettings route, SinkRecord sample)
      throws RecordConversionException {
    TableIdentifier identifier = identifier(id);
    try {
      return catalog.loadTable(identifier);
    } catch (NoSuchTableException missing) {
      if (!route.autoCreate()) {
        throw TableNotFoundException.autoCreateOff(id, route);
      }
      return IcebergTableCreator.create(
          catalog, identifier, route, sample, atomicRounds.isPresent());
    }
  }

  /** The catalog, as loaded; the take-over from the Apache Iceberg sink commits through it. */
  public Catalog catalog() {
    return catalog;
  }

  public String connector() {
    return connector;
  }

  public SnapshotKeys keys() {
    return keys;
  }

  Table table(TableId id) {
    Table table = tables.computeIfAbsent(id, t -> catalog.loadTable(identifier(t)));
    table.refresh();
    return table;
  }

  /**
   * A task may write to an append table right after another task's undecided batch: data files
   * carry no order of their own, and the coordinator commits the batch before (or rejects it with)
   * anything written after it. Not after a batch of a keyed table (its position deletes and the key
   * index the next writer would read do not know the batch's rows), nor after files that cannot be
   * read against the table's specs. The table comes from the cache when it is there: a batch
   * written against a spec the cached table does not know yet is not read on after.
   */
  @Override
  public boolean writerCountsOn(PreparedFiles files) {
    return KeyedFilesCodec.isKeyed(files.payloadVersion());
  }

  @Override
  public Optional<WriteAfter> writeAfter(TableId id, PreparedFiles files) {
    if (files.payloadVersion() != DataFilesCodec.VERSION) {
      return Optional.empty();
    }
    try {
      Table table = tables.computeIfAbsent(id, t -> catalog.loadTable(identifier(t)));
      if (!table.schema().identifierFieldIds().isEmpty()) {
        return Optional.empty();
      }
      DataFilesCodec.decode(files.payloadVersion(), files.payload(), table.specs());
    } catch (DataFilesCodec.InvalidDataFilesException | RuntimeException e) {
      LOG.debug("A handed-in batch of {} is not read on after: {}", id, e.toString());
      return Optional.empty();
    }
    return Optional.of(WriteAfter.NOTHING);
  }

  /**
   * Commits the change, or on a REST catalog keeps it pending for this task's writers, for the
   * coordinator to commit with their files ({@link PendingSchemas}).
   */
  @Override
  public void evolve(TableId id, FieldType.Struct row, EvolutionMode mode)
      throws RecordConversionException {
    Table[] target = new Table[1];
    SchemaEvolutionLoop.run(
        connector,
        id,
        () -> {
          Table table = table(id);
          target[0] = pendingSchemas.map(p -> p.editable(id, table)).orElse(table);
          return IcebergColumns.of(target[0]);
        },
        row,
        mode,
        changes -> IcebergSchemaChanges.apply(target[0], changes));
  }

  /** A table property that turns compaction off for one table (for example a route's tables). */
  static final String COMPACT_ENABLED_PROPERTY = "streamhouse.compact.enabled";

  /** A table property that sets {@code maintenance.compact.min-input-files} for one table. */
  static final String COMPACT_MIN_INPUT_FILES_PROPERTY = "streamhouse.compact.min-input-files";

  @Override
  public MaintenanceReport maintain(
      TableId id,
      MaintenanceSettings settings,
      long deadlineNanos,
      MaintenanceCheckpoints checkpoints) {
    // A table object of its own: the committer threads refresh and commit the cached ones.
    Table table = catalog.loadTable(identifier(id));
    MaintenanceReport report = MaintenanceReport.NONE;
    if (settings.expires()) {
      IcebergSnapshotExpiry.Result expired =
          IcebergSnapshotExpiry.expire(
              table, settings, System.currentTimeMillis(), checkpoints::afterExpiryCommit);
      report = MaintenanceReport.expired(expired.snapshotsExpired(), expired.filesDeleted());
    }
    // Only where the catalog keeps the connector's tag: Nessie keeps a table's current snapshot
    // alone and no tags, so a compaction's snapshot would hide the connector's watermarks. Never
    // in atomic rounds.
    if (System.nanoTime() < deadlineNanos
        && atomicRounds.isEmpty()
        && table.refs().containsKey(keys.tag())) {
      IcebergFileCompactor.CompactionResult compacted =
          IcebergPassCompaction.run(
              table,
              settings,
              deadlineNanos,
              checkpoints,
              table.schema().identifierFieldIds().isEmpty() ? null : keys.rewriteMap(),
              commitLock(id));
      if (compacted != null) {
        report =
            report.plus(
                MaintenanceReport.compacted(
                    compacted.filesRemoved(),
                    compacted.bytesRewritten(),
                    compacted.filesAdded(),
                    compacted.groupsConflicted(),
                    compacted.durationMs()));
      }
    }
    if (settings.cleansOrphans()
        && System.nanoTime() < deadlineNanos
        && orphanScans.due(id, System.currentTimeMillis(), settings.orphansMinAgeMs())) {
      report =
          report.plus(
              MaintenanceReport.orphans(
                  IcebergOrphanCleanup.clean(
                      table,
                      settings.orphansMinAgeMs(),
                      System.currentTimeMillis(),
                      deadlineNanos)));
    }
    table.refresh();
    return report.plus(MaintenanceReport.liveDataFiles(IcebergFileCompactor.liveDataFiles(table)));
  }

  @Override
  public Watermarks watermarks(TableId id) {
    try {
      return watermarksOf(latestOwnSnapshot(table(id)));
    } catch (NoSuchTableException missing) {
      return Watermarks.EMPTY;
    }
  }

  Watermarks watermarksOf(Optional<Snapshot> own) {
    return own.map(s -> Watermarks.decode(s.summary().get(keys.watermarks())))
        .orElse(Watermarks.EMPTY);
  }

  private Optional<Snapshot> latestOwnSnapshot(Table table) {
    return OwnSnapshot.find(table, keys).map(OwnSnapshot::snapshot);
  }

  /**
   * The own-snapshot check runs in Iceberg's commit, against the metadata the catalog swaps
   * atomically. Not in atomic rounds: a task committing its own batches would show a part of a
   * round.
   */
  @Override
  public boolean toleratesConcurrentCommitters() {
    return atomicRounds.isEmpty();
  }

  @Override
  public Optional<AtomicRounds> atomicRounds() {
    return atomicRounds;
  }

  @Override
  public CommitOutcome commit(
      TableId id, long commitId, List<OfferedBatch> offered, boolean fullRound) {
    synchronized (commitLock(id)) {
      return IcebergCommit.run(this, id, commitId, offered, fullRound, null);
    }
  }

  Object commitLock(TableId id) {
    return commitLocks.computeIfAbsent(id, t -> new Object());
  }

  @Override
  public boolean deletesDue(TableId id, MaintenanceSettings settings) {
    Table cached = tables.get(id); // the table the commit that just ran refreshed
    return cached != null && DeleteCompactionTrigger.due(cached.currentSnapshot(), settings);
  }

  @Override
  public void discard(TableId id, List<PreparedFiles> prepared) {
    UncommittedFiles.delete(id, table(id), prepared);
  }

  static void deleteQuietly(Table table, String location) {
    try {
      table.io().deleteFile(location);
    } catch (RuntimeException e) {
      LOG.debug("Could not delete {}: {}", location, e.toString()); // an orphan, cleaned later
    }
  }

  static TableIdentifier identifier(TableId id) {
    return TableIdentifier.of(Namespace.of(id.namespace().toArray(String[]::new)), id.name());
  }

  @Override
  public void close() {
    if (catalog instanceof Closeable closeable) {
      try {
        closeable.close();
      } catch (IOException e) {
        LOG.warn("Could not close catalog: {}", e.toString());
      }
    }
  }
}
