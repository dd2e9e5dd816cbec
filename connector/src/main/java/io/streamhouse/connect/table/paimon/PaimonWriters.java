package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.decode.ChangeDecoder;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.TableNotFoundException;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.table.WriteAfter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.table.FileStoreTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task's side of a Paimon catalog: writers of its tables (a table a route may create is created
 * with the first record), all sharing one write buffer ({@link TaskWriteBuffer}) and one spill
 * directory ({@link IOManager}, which the task's compactions use too).
 */
final class PaimonWriters {
  private static final Logger LOG = LoggerFactory.getLogger(PaimonWriters.class);
  private static final int PAGE_SIZE = 64 * 1024;

  private final PaimonCatalogTables tables;
  private final String connector;
  private final String commitUser;
  private final long writeBufferBytes;
  private final Path spillDir;
  private final Set<TableId> warnedWithoutIceberg = ConcurrentHashMap.newKeySet();
  private final SequenceFloors floors = new SequenceFloors();
  private IOManager ioManager;
  private TaskWriteBuffer writeBuffer;

  PaimonWriters(
      PaimonCatalogTables tables,
      String connector,
      String commitUser,
      long writeBufferBytes,
      Path spillDir) {
    this.tables = tables;
    this.connector = connector;
    this.commitUser = commitUser;
    this.writeBufferBytes = writeBufferBytes;
    this.spillDir = spillDir;
  }

  Optional<TableWriter> open(TableId id, RouteSettings route, SinkRecord sample)
      throws RecordConversionException {
    if (!tables.exists(id)) {
      // Bad input must not define a table: decode first (an unknown op, a delete without a key).
      ChangeDecoder.Change change =
          new ChangeDecoder(route.input(), route.primaryKey()).decode(sample);
      if (change.keyOnly()) {
        return Optional.empty(); // a delete for a table that does not exist yet deletes nothing
      }
      if (!route.autoCreate()) {
        throw TableNotFoundException.autoCreateOff(id, route);
      }
      PaimonTableCreator.create(
          tables.catalog(), PaimonCatalogTables.identifier(id), route, sample);
    }
    FileStoreTable table = tables.table(id);
    if (route.deadLetters() && !table.primaryKeys().isEmpty()) {
      throw notAnAppendTable(id, table);
    }
    if (route.icebergCompatible()) {
      warnIfWithoutIcebergMetadata(id, table);
    }
    return Optional.of(
        new PaimonTableWriter(table, commitUser, route, ioManager(), writeBuffer(), floors.of(id)));
  }

  /**
   * The dead-letter table takes every bad record as a row of its own: in a table with a primary key
   * rows would replace each other, and several tasks would write the same buckets.
   */
  private static IllegalStateException notAnAppendTable(TableId id, FileStoreTable table) {
    return new IllegalStateException(
        "Paimon table "
            + id
            + " (errors.deadletter.table) has primary key "
            + table.primaryKeys()
            + ": the dead-letter table must be an append table (no primary key); name another table"
            + " (the connector creates it) or drop this one");
  }

  /**
   * See {@link io.streamhouse.connect.table.TableFormat#writeAfter}: the floors of the batch's
   * buckets, raised before the task opens a writer of the table ({@link SequenceFloors}).
   */
  Optional<WriteAfter> writeAfter(TableId id, PreparedFiles files) {
    Optional<Map<SequenceFloors.Bucket, SequenceFloors.Floor>> batch;
    try {
      batch = SequenceFloors.of(tables.table(id), files);
    } catch (RuntimeException e) {
      LOG.debug("Cannot read table {} for a handed-in batch: {}", id, e.toString());
      return Optional.empty();
    }
    return batch.map(
        b -> b.isEmpty() ? WriteAfter.NOTHING : (WriteAfter) () -> floors.raise(id, b));
  }

  /**
   * The writer of a table whose schema changed numbers its rows above every row of the writer it
   * follows: those rows are in files not committed yet, which a new writer's restore would not see.
   */
  Optional<TableWriter> openAfter(
      TableWriter previous, TableId id, RouteSettings route, SinkRecord sample)
      throws RecordConversionException {
    Optional<TableWriter> next = open(id, route, sample);
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
          "Route option iceberg-compatible is on, but Paimon table {} existed before and has no "
              + "Iceberg metadata (metadata.iceberg.storage is disabled); the connector changes no "
              + "options of existing tables: set them with ALTER TABLE ... SET (see docs/paimon.md, "
              + "'Reading Paimon tables with Iceberg engines')",
          id);
    }
  }

  /** The spill directory of the task's writers and compactions, created at its first use. */
  synchronized IOManager ioManager() {
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

  synchronized void close() throws Exception {
    if (ioManager != null) {
      ioManager.close();
    }
  }
}
