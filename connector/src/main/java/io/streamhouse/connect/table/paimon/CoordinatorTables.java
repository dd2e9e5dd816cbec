package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.protocol.TableId;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.paimon.Snapshot;
import org.apache.paimon.fs.Path;
import org.apache.paimon.options.MemorySize;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.utils.SegmentsCache;

/**
 * The coordinator's Paimon tables, kept between commits instead of loaded from the catalog (whose
 * cache is off) twice per commit: the table, its copy with Paimon's commit retry off, and the
 * connector's latest snapshot in it as the coordinator last committed or read it. A kept table is
 * loaded again as soon as the table has a newer schema (an ALTER, a task's schema evolution: Paimon
 * writes schema ids one after the other, so one file check tells), and after a commit failed. Only
 * catalogs whose tables keep their schemas in the table's own schema files (filesystem, jdbc) keep
 * tables; with the others (rest, hive) every commit loads its table once.
 */
final class CoordinatorTables {
  /** One table as the coordinator keeps it. */
  record Loaded(FileStoreTable table, FileStoreTable retryOff) {
    long schemaId() {
      return table.schema().id();
    }
  }

  /**
   * Manifest and manifest-list files the coordinator's commits read, shared by its tables (Paimon's
   * CachingCatalog keeps one, but the catalog cache is off): a compaction commit reads every
   * manifest of the partitions it touches, every commit the table's manifest list, and they never
   * change once written. Soft values, so a full heap sheds them.
   */
  static final long MANIFEST_CACHE_BYTES = 32L << 20;

  /** Paimon's table option for reading the table's files before a commit to drop duplicates. */
  static final String DISCARD_DUPLICATE_FILES = "commit.discard-duplicate-files";

  private static final int MANIFEST_CACHE_PAGE = 1024;
  private static final long MANIFEST_CACHE_LARGEST_FILE = 1L << 20;

  private final Function<TableId, FileStoreTable> catalog;
  private final boolean keep;
  private final SegmentsCache<Path> manifests =
      SegmentsCache.create(
          MANIFEST_CACHE_PAGE,
          MemorySize.ofBytes(MANIFEST_CACHE_BYTES),
          MANIFEST_CACHE_LARGEST_FILE);
  private final Map<TableId, Loaded> tables = new ConcurrentHashMap<>();
  private final Map<TableId, Snapshot> own = new ConcurrentHashMap<>();

  /**
   * {@code keep}: whether the catalog's tables keep their schemas in their own schema files, so
   * that a kept table can tell that it is out of date.
   */
  CoordinatorTables(Function<TableId, FileStoreTable> catalog, boolean keep) {
    this.catalog = catalog;
    this.keep = keep;
  }

  /** Whether tables of a catalog of {@code type} ({@code catalog.<name>.type}) can be kept. */
  static boolean keepsTablesOf(String type) {
    return type.equals("filesystem") || type.equals("jdbc");
  }

  /** Runs between a commit's last look at the table and its snapshot (tests: a frozen thread). */
  private volatile Runnable beforeCommit = () -> {};

  /** Tests: {@code hook} runs between each commit's last look at the table and its snapshot. */
  void beforeCommit(Runnable hook) {
    this.beforeCommit = hook;
  }

  /**
   * Runs {@code commit}, a commit through a table's {@link Loaded#retryOff} copy planned on
   * snapshot {@code base} (null: none), so that it lands only as the snapshot right after it
   * ({@link ExpectedSnapshotEnvironment}); it fails otherwise.
   */
  void commitAfter(Long base, Runnable commit) {
    beforeCommit.run();
    ExpectedSnapshotEnvironment.expecting(
        base == null ? Snapshot.FIRST_SNAPSHOT_ID : base + 1, commit);
  }

  /** The table as it is now. */
  Loaded get(TableId id) {
    if (!keep) {
      return load(id);
    }
    Loaded kept = tables.get(id);
    if (kept != null && kept.table().schemaManager().schemaExists(kept.schemaId() + 1)) {
      tables.remove(id, kept);
    }
    return tables.computeIfAbsent(id, this::load);
  }

  private Loaded load(TableId id) {
    FileStoreTable table = catalog.apply(id);
    // The commit copy checks, as Paimon writes the snapshot, that it follows the plan's.
    // It does not read the table's manifests for duplicate files before each data commit
    // (commit.discard-duplicate-files, which the tables the connector creates set for other
    // writers): a batch applies only where it continues the watermarks, in the snapshot right after
    // the plan's (invariant contiguity), so a batch already in the table is acknowledged, never
    // applied again. That read was more than half of a commit's CPU (docs/performance.md).
    // Compaction commits still check their deleted files against the table.
    FileStoreTable retryOff =
        FileStoreTableFactory.create(
                table.fileIO(),
                table.location(),
                table.schema(),
                Options.fromMap(table.options()),
                new ExpectedSnapshotEnvironment(table.catalogEnvironment()))
            .copy(Map.of("commit.max-retries", "0", DISCARD_DUPLICATE_FILES, "false"));
    table.setManifestCache(manifests);
    retryOff.setManifestCache(manifests);
    return new Loaded(table, retryOff);
  }

  /**
   * The connector's latest snapshot, if it is the table's latest one ({@code latestId}) and the
   * coordinator knows it already; empty when it has to be read.
   */
  Optional<Snapshot> ownIfLatest(TableId id, Long latestId) {
    Snapshot known = own.get(id);
    return known != null && latestId != null && known.id() == latestId
        ? Optional.of(known)
        : Optional.empty();
  }

  /** {@code snapshot} is the connector's latest in the table. */
  void ownSnapshot(TableId id, Snapshot snapshot) {
    own.put(id, snapshot);
  }

  /** Loads the table again at its next use (a commit failed, or its schema moved on). */
  void forget(TableId id) {
    tables.remove(id);
    own.remove(id);
  }
}
