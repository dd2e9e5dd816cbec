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
import io.streamhouse.connect.schema.SchemaChange;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
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
  }

  @Override
  public Optional<TableWriter> openWriter(
      TableId id, RouteSettings route, SinkRecord sample, FileBudget budget)
      throws RecordConversionException {
    if (!route.icebergKeyed()) {
      if (sample.value() == null && !catalog.tableExists(identifier(id))) {
        return Optional.empty(); // a tombstone adds nothing to an append table
      }
      Table table = loadOrCreate(id, route, sample);
      table.refresh();
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
    Table table = loadOrCreate(id, route, sample);
    table.refresh();
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
    Table table = table(id);
    return Optional.of(
        new IcebergKeyedTableWriter(table, taskId, budget, route, keyed.base(), keys));
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
    return files.payloadVersion() == KeyedFilesCodec.VERSION;
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

  @Override
  public void evolve(TableId id, FieldType.Struct row, EvolutionMode mode)
      throws RecordConversionException {
    SchemaEvolutionLoop.run(
        connector,
        id,
        () -> IcebergColumns.of(table(id)),
        row,
        mode,
        changes -> {
          UpdateSchema update = table(id).updateSchema();
          for (SchemaChange change : changes) {
            String column = SchemaChange.dotted(change.path());
            if (change instanceof SchemaChange.AddColumn add) {
              List<String> parent = add.path().subList(0, add.path().size() - 1);
              String name = add.path().get(add.path().size() - 1);
              if (parent.isEmpty()) {
                update.addColumn(name, IcebergColumns.iceberg(add.type()));
              } else {
                update.addColumn(
                    SchemaChange.dotted(parent), name, IcebergColumns.iceberg(add.type()));
              }
            } else if (change instanceof SchemaChange.WidenColumn widen) {
              update.updateColumn(column, IcebergColumns.iceberg(widen.to()).asPrimitiveType());
            } else {
              update.makeColumnOptional(column);
            }
          }
          update.commit();
        });
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
    // Not in atomic rounds: a catalog like Nessie keeps only a table's current snapshot, and a
    // compaction's would hide the connector's watermarks behind it.
    if (System.nanoTime() < deadlineNanos && atomicRounds.isEmpty()) {
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
    Table table = table(id);
    for (PreparedFiles files : prepared) {
      List<ContentFile<?>> decoded = new ArrayList<>();
      try {
        if (files.payloadVersion() == KeyedFilesCodec.VERSION) {
          KeyedFilesCodec.KeyedFiles keyed = KeyedFilesCodec.decode(files.payload(), table.specs());
          decoded.addAll(keyed.data());
          decoded.addAll(keyed.deletes());
        } else {
          decoded.addAll(
              DataFilesCodec.decode(files.payloadVersion(), files.payload(), table.specs()));
        }
      } catch (DataFilesCodec.InvalidDataFilesException e) {
        LOG.warn("Uncommitted files of {} cannot be read, so not deleted: {}", id, e.getMessage());
        continue;
      }
      for (ContentFile<?> file : decoded) {
        try {
          table.io().deleteFile(file.location());
        } catch (RuntimeException e) {
          LOG.warn(
              "Could not delete uncommitted file {} of {}: {}", file.location(), id, e.toString());
        }
      }
    }
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
