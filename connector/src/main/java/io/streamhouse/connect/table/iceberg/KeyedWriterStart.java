package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.table.FileBudget;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start of a keyed table's writer: the table must have identifier fields; its key index is read
 * from the current snapshot, with the connector's watermarks and key writers of its latest own
 * snapshot, which the coordinator checks the writer's batches against.
 */
final class KeyedWriterStart {
  private static final Logger LOG = LoggerFactory.getLogger(KeyedWriterStart.class);

  private KeyedWriterStart() {}

  /** A new writer of keyed table {@code table} ({@code id}) for {@code route}. */
  static IcebergKeyedTableWriter open(
      IcebergFormat format,
      Table table,
      TableId id,
      RouteSettings route,
      FileBudget budget,
      int taskId) {
    if (table.schema().identifierFieldIds().isEmpty()) {
      throw new IllegalStateException(
          "Connector "
              + format.connector()
              + ": route "
              + route.name()
              + " writes keyed rows but table "
              + id
              + " has no identifier fields (primary key); set them on the table (ALTER TABLE ... "
              + "SET IDENTIFIER FIELDS) or route its topics as append-only");
    }
    long start = System.nanoTime();
    Optional<Snapshot> own = OwnSnapshot.find(table, format.keys()).map(OwnSnapshot::snapshot);
    IcebergKeyedTableWriter.Base base =
        readBase(
            table,
            route,
            format.watermarksOf(own),
            own.map(s -> keyWritersOf(format, s, table.name())).orElse(Watermarks.EMPTY));
    LOG.info(
        "Read the key index of {} at snapshot {}: {} keys in {} data files ({} KB) in {} ms",
        id,
        base.snapshot(),
        base.index().keys(),
        base.index().fileCount(),
        base.index().bytes() / 1024,
        (System.nanoTime() - start) / 1_000_000);
    return new IcebergKeyedTableWriter(table, taskId, budget, route, base, format.keys());
  }

  /**
   * Reads the key index of {@code table} as it is now, for a new writer of {@code route}; {@code
   * watermarks} and {@code writers} are the connector's state in its latest own snapshot.
   */
  static IcebergKeyedTableWriter.Base readBase(
      Table table, RouteSettings route, Watermarks watermarks, Watermarks writers) {
    Schema schema = table.schema();
    List<Integer> keyIds = KeyIndex.keyIds(schema);
    KeyHash hash = new KeyHash(KeyIndex.keyTypes(schema, keyIds));
    int orderId = OrderColumn.fieldId(schema, route, table.name());
    Snapshot current = table.currentSnapshot();
    return new IcebergKeyedTableWriter.Base(
        KeyIndex.read(table, current, keyIds, orderId, hash),
        ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE),
        current == null ? -1 : current.snapshotId(),
        watermarks,
        writers);
  }

  /**
   * The key writers {@code snapshot} records; none when the summary value cannot be read (it comes
   * from the catalog, which anyone may write): a WARN names the table.
   */
  static Watermarks keyWritersOf(IcebergFormat format, Snapshot snapshot, String table) {
    String key = format.keys().keyWriters();
    try {
      return Watermarks.decode(snapshot.summary().get(key));
    } catch (IllegalArgumentException e) {
      LOG.warn(
          "Connector {}: table {} has an unreadable {} in snapshot {}, read as none: {}",
          format.connector(),
          table,
          key,
          snapshot.snapshotId(),
          e.getMessage());
      return Watermarks.EMPTY;
    }
  }
}
