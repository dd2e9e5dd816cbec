package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.protocol.TableId;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The schema changes a task made in round-atomic mode and the catalog does not hold yet. Such a
 * task does not commit a schema change: it changes a view of the table kept here, writes its files
 * with the view's schema (new columns get the ids Iceberg would give them next), and its batches
 * carry that schema ({@link CarriedSchema}) for the coordinator to commit with the round's data
 * ({@link SchemaUnion}), so that readers see new columns and their values in the same commit. A
 * pending schema ends when the table holds it, or when it no longer joins the table's (another
 * task's change took the same ids first): the coordinator rejects the batches written with it, and
 * the task writes their records again against the table's schema.
 */
final class PendingSchemas {
  private static final Logger LOG = LoggerFactory.getLogger(PendingSchemas.class);

  private final Map<TableId, Schema> pending = new ConcurrentHashMap<>();

  /**
   * {@code table} as this task writes it: with its pending schema when there is one the table does
   * not hold yet, otherwise {@code table} itself.
   */
  Table writable(TableId id, Table table) {
    return withPending(id, table).map(m -> view(id, table, m)).orElse(table);
  }

  /** A view of {@code table} whose schema changes stay here, pending, instead of committing. */
  Table editable(TableId id, Table table) {
    TableMetadata current = operations(table).current();
    return view(id, table, withPending(id, table).orElse(current));
  }

  private Table view(TableId id, Table table, TableMetadata metadata) {
    return new PendingTable(new PendingOperations(id, operations(table), metadata), table.name());
  }

  /**
   * The schema a batch of {@code dataFiles} written to {@code table} carries: its pending one, if
   * it has one and the batch has files written with it. A batch without data files (its records all
   * went to the dead-letter queue) carries none, so that the change commits with the first files
   * written with it, not a round before them.
   */
  static Optional<Schema> carried(Table table, Collection<?> dataFiles) {
    return table instanceof PendingTable && !dataFiles.isEmpty()
        ? Optional.of(table.schema())
        : Optional.empty();
  }

  private Optional<TableMetadata> withPending(TableId id, Table table) {
    Schema schema = pending.get(id);
    if (schema == null) {
      return Optional.empty();
    }
    TableMetadata current = operations(table).current();
    SchemaUnion.Joined joined;
    try {
      joined = SchemaUnion.join(current.schema(), current.lastColumnId(), schema);
    } catch (SchemaUnion.Conflict conflict) {
      LOG.info(
          "The schema change this task made to {} no longer fits the table's schema ({}): the"
              + " batches written with it are rejected, and new ones follow the table's schema",
          id,
          conflict.getMessage());
      pending.remove(id, schema);
      return Optional.empty();
    }
    if (!SchemaUnion.changes(current.schema(), current.lastColumnId(), joined)) {
      pending.remove(id, schema); // committed
      return Optional.empty();
    }
    return Optional.of(
        TableMetadata.buildFrom(current)
            .setCurrentSchema(joined.schema(), joined.lastColumnId())
            .build());
  }

  private static TableOperations operations(Table table) {
    if (table instanceof HasTableOperations tableWithOps) {
      return tableWithOps.operations();
    }
    throw new IllegalStateException(
        "Table " + table.name() + " has no metadata of its own to change the schema of");
  }

  /** A table with the task's pending schema; a schema update "commits" by becoming pending. */
  private static final class PendingTable extends BaseTable {
    private static final long serialVersionUID = 1L;

    PendingTable(TableOperations operations, String name) {
      super(operations, name);
    }
  }

  /** The table's operations, but for metadata, which is the view's and changes only here. */
  private final class PendingOperations implements TableOperations {
    private final TableId id;
    private final TableOperations table;
    private TableMetadata current;

    PendingOperations(TableId id, TableOperations table, TableMetadata current) {
      this.id = id;
      this.table = table;
      this.current = current;
    }

    @Override
    public TableMetadata current() {
      return current;
    }

    @Override
    public TableMetadata refresh() {
      return current;
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      if (base != current) {
        throw new CommitFailedException("The pending schema of %s changed meanwhile", id);
      }
      current = metadata;
      pending.put(id, metadata.schema());
      LOG.info(
          "The schema change of {} is kept with this task's batches, for the coordinator to commit"
              + " with their data",
          id);
    }

    @Override
    public FileIO io() {
      return table.io();
    }

    @Override
    public EncryptionManager encryption() {
      return table.encryption();
    }

    @Override
    public String metadataFileLocation(String fileName) {
      return table.metadataFileLocation(fileName);
    }

    @Override
    public LocationProvider locationProvider() {
      return table.locationProvider();
    }

    @Override
    public long newSnapshotId() {
      return table.newSnapshotId();
    }
  }
}
