package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.protocol.OfferedBatch;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.exceptions.CommitFailedException;

/**
 * The schemas the batches of one commit carry ({@link CarriedSchema}), joined into the table's in
 * the order the batches apply ({@link SchemaUnion}). A round-atomic commit makes the schema change
 * in the same transaction as the snapshot; a per-table commit makes it just before, as a commit of
 * its own, so that the snapshot is made on the new schema. A batch whose schema does not join the
 * table's and the schemas before it is refused: its task writes the records again against the
 * table's schema.
 */
final class BatchSchemas {
  private final Map<String, Schema> carried = new HashMap<>();

  void add(String batchId, Optional<Schema> schema) {
    schema.ifPresent(s -> carried.put(batchId, s));
  }

  /** The batches of {@code applying} whose schema cannot join {@code table}'s, with why. */
  Map<String, String> refused(Table table, List<OfferedBatch> applying) {
    Map<String, String> refused = new LinkedHashMap<>();
    join(metadata(table), applying, refused);
    return refused;
  }

  /**
   * Commits the schema of {@code applying} joined into {@code table}'s, when it differs, as a
   * commit of its own (a per-table commit, before its snapshot).
   *
   * @throws CommitFailedException when the table's schema changed since it was read
   */
  void commitAhead(Table table, List<OfferedBatch> applying) {
    change(((HasTableOperations) table).operations(), applying);
  }

  /**
   * Changes the schema of {@code transaction} to that of {@code applying} joined into it, when it
   * differs (a round-atomic commit: the schema and the snapshot in one table commit).
   */
  void apply(Transaction transaction, List<OfferedBatch> applying) {
    change(((HasTableOperations) transaction.table()).operations(), applying);
  }

  /** {@link #refused} took out every batch that does not join. */
  private void change(TableOperations operations, List<OfferedBatch> applying) {
    TableMetadata base = operations.current();
    SchemaUnion.Joined joined = join(base, applying, null);
    if (SchemaUnion.changes(base.schema(), base.lastColumnId(), joined)) {
      operations.commit(
          base,
          TableMetadata.buildFrom(base)
              .setCurrentSchema(joined.schema(), joined.lastColumnId())
              .build());
    }
  }

  /**
   * The schemas of {@code applying} joined into {@code base}'s in order; a batch that does not join
   * goes into {@code refused} with why, or fails the commit when there is none to take it.
   */
  private SchemaUnion.Joined join(
      TableMetadata base, List<OfferedBatch> applying, Map<String, String> refused) {
    SchemaUnion.Joined joined = new SchemaUnion.Joined(base.schema(), base.lastColumnId());
    for (OfferedBatch batch : applying) {
      Schema schema = carried.get(batch.batchId());
      if (schema == null) {
        continue;
      }
      try {
        joined = SchemaUnion.join(joined.schema(), joined.lastColumnId(), schema);
      } catch (SchemaUnion.Conflict conflict) {
        if (refused == null) {
          throw new IllegalStateException(
              "Batch " + batch.batchId() + " was not refused: " + conflict.getMessage(), conflict);
        }
        refused.put(
            batch.batchId(),
            "its files were written with a schema the table's does not take: "
                + conflict.getMessage());
      }
    }
    return joined;
  }

  private static TableMetadata metadata(Table table) {
    return ((HasTableOperations) table).operations().current();
  }
}
