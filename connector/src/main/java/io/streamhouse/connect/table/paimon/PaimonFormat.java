package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.config.CatalogSettings;
import io.streamhouse.connect.config.MaintenanceSettings;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.CompactionResult;
import io.streamhouse.connect.protocol.MaintenanceReport;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.schema.EvolutionMode;
import io.streamhouse.connect.schema.FieldType;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.MaintenanceCheckpoints;
import io.streamhouse.connect.table.SnapshotKeys;
import io.streamhouse.connect.table.TableFormat;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.table.WriteAfter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Paimon tables of one catalog: writers (tasks) and the atomic, watermark-checked commit plus
 * compaction (coordinator). Everything is written and committed under one stable commit user per
 * connector, {@code streamhouse-<connector>}; its latest snapshot in a table carries the
 * connector's watermarks in the snapshot properties.
 *
 * <p>The {@link TableFormat} of Paimon wires its parts, one job each: {@link PaimonWriters} (the
 * task's writers and their shared buffer), {@link PaimonSchemaEvolution}, {@link PaimonWatermarks}
 * (watermarks and the connector's tag), {@link PaimonDataCommitter} (written records), {@link
 * PaimonCompactions} (compaction jobs run and committed) and {@link PaimonOrphanCleanup}.
 */
public final class PaimonFormat implements TableFormat {
  private static final Logger LOG = LoggerFactory.getLogger(PaimonFormat.class);

  private final Catalog catalog;
  private final PaimonCatalogTables tables;
  private final PaimonWriters writers;
  private final PaimonSchemaEvolution evolution;
  private final PaimonWatermarks watermarks;
  private final PaimonDataCommitter committer;
  private final PaimonCompactions compactions;
  private final PaimonOrphanCleanup orphans;
  private final CoordinatorTables coordinatorTables;

  public PaimonFormat(
      CatalogSettings settings, String connector, long writeBufferBytes, Path spillDir) {
    this.catalog = PaimonCatalogLoader.load(settings);
    this.tables = new PaimonCatalogTables(catalog);
    String commitUser = commitUser(connector);
    SnapshotKeys keys = new SnapshotKeys(connector);
    this.writers = new PaimonWriters(tables, connector, commitUser, writeBufferBytes, spillDir);
    this.evolution = new PaimonSchemaEvolution(tables, connector);
    this.watermarks = new PaimonWatermarks(commitUser, keys);
    PaimonCompactor compactor = new PaimonCompactor(commitUser, writers::ioManager);
    CoordinatorTables kept =
        new CoordinatorTables(tables::table, CoordinatorTables.keepsTablesOf(settings.type()));
    this.coordinatorTables = kept;
    this.committer =
        new PaimonDataCommitter(connector, commitUser, keys, kept, watermarks, compactor);
    this.compactions =
        new PaimonCompactions(tables, connector, commitUser, kept, watermarks, compactor);
    this.orphans = new PaimonOrphanCleanup(tables, commitUser);
  }

  /** The commit user of a connector's writes and commits in every table. */
  public static String commitUser(String connector) {
    return "streamhouse-" + connector;
  }

  @Override
  public Optional<TableWriter> openWriter(
      TableId id, RouteSettings route, SinkRecord sample, FileBudget budget)
      throws RecordConversionException {
    return writers.open(id, route, sample);
  }

  @Override
  public Optional<TableWriter> openWriterAfter(
      TableWriter previous, TableId id, RouteSettings route, SinkRecord sample, FileBudget budget)
      throws RecordConversionException {
    return writers.openAfter(previous, id, route, sample);
  }

  @Override
  public Optional<WriteAfter> writeAfter(TableId id, PreparedFiles files) {
    return writers.writeAfter(id, files);
  }

  FileStoreTable table(TableId id) {
    return tables.table(id);
  }

  PaimonCompactions compactions() {
    return compactions;
  }

  /** Tests: the table as the coordinator keeps it, with its commit copy. */
  CoordinatorTables.Loaded coordinatorTable(TableId id) {
    return coordinatorTables.get(id);
  }

  /**
   * Tests: {@code hook} runs between a commit's last look at the table and its snapshot (written
   * records and compactions).
   */
  void beforeCommit(Runnable hook) {
    coordinatorTables.beforeCommit(hook);
  }

  @Override
  public void evolve(TableId id, FieldType.Struct row, EvolutionMode mode)
      throws RecordConversionException {
    evolution.evolve(id, row, mode);
  }

  @Override
  public Watermarks watermarks(TableId id) {
    if (!tables.exists(id)) {
      return Watermarks.EMPTY;
    }
    return watermarks.of(watermarks.ownSnapshot(tables.table(id)));
  }

  /**
   * Invariant <em>contiguity</em> (docs/architecture.md) for Paimon, which has no commit hook
   * ({@link PaimonDataCommitter}).
   */
  @Override
  public CommitOutcome commit(
      TableId id, long commitId, List<OfferedBatch> offered, boolean fullRound) {
    return committer.commit(id, commitId, offered, fullRound);
  }

  @Override
  public Map<String, BatchPlan.Decision> commitCompactions(
      TableId id, long commitId, List<CompactionResult> results) {
    return compactions.commit(id, commitId, results);
  }

  @Override
  public MaintenanceReport maintain(
      TableId id,
      MaintenanceSettings settings,
      long deadlineNanos,
      MaintenanceCheckpoints checkpoints) {
    return orphans.maintain(id, settings, deadlineNanos);
  }

  @Override
  public List<CompactionJob> pendingCompactions(TableId id) {
    return compactions.pending(id);
  }

  @Override
  public OptionalLong latestSnapshotId(TableId id) {
    return compactions.latestSnapshotId(id);
  }

  @Override
  public PreparedFiles compact(TableId id, List<CompactionJob> jobs) {
    return compactions.compact(id, jobs);
  }

  @Override
  public void discard(TableId id, List<PreparedFiles> prepared) {
    orphans.discard(id, prepared);
  }

  static Identifier identifier(TableId id) {
    return PaimonCatalogTables.identifier(id);
  }

  /** The write buffer all Paimon writers of this task share. */
  TaskWriteBuffer writeBuffer() {
    return writers.writeBuffer();
  }

  @Override
  public synchronized void close() {
    try {
      writers.close();
      catalog.close();
    } catch (Exception e) {
      LOG.warn("Could not close the Paimon catalog: {}", e.toString());
    }
  }
}
