package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.decode.ChangeDecoder;
import io.streamhouse.connect.decode.InputMode;
import io.streamhouse.connect.decode.KafkaMetadata;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.table.DetachedFiles;
import io.streamhouse.connect.table.TableWriter;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.RowKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writes of one task to one Paimon table, in {@code write-only} mode: no compaction and no
 * snapshot expiry here, the coordinator does both. Files are written under the connector's commit
 * user and handed to the coordinator as serialized commit messages.
 *
 * <p>The writer's sequence numbers start above what the table held when it was created, and the
 * task creates it only after it loaded the table's watermarks; together with the contiguity check
 * this keeps a key's later write above its earlier ones across tasks (see docs/paimon.md).
 */
final class PaimonTableWriter implements TableWriter {
  private static final Logger LOG = LoggerFactory.getLogger(PaimonTableWriter.class);

  /**
   * Identifier given to {@code prepareCommit}: above any real commit identifier, so that Paimon
   * never closes a bucket writer whose files are still uncommitted (its idle-writer cleanup
   * compares this with the last committed identifier). It is never committed.
   */
  private static final long PREPARE_IDENTIFIER = Long.MAX_VALUE - 1;

  private final String table;
  private final FileStoreTable writeOnly;
  private final String commitUser;
  private final IOManager ioManager;
  private final TaskWriteBuffer buffer;
  private final ChangeDecoder decoder;
  private final PaimonRowConverter converter;
  private final List<String> primaryKey;
  private final List<String> sequenceFields;
  private final boolean debezium;
  private final io.streamhouse.connect.schema.TableColumns columns;

  /** The route's name, its Kafka metadata, and the position of its column (-1: none to write). */
  private final String route;

  private final KafkaMetadata metadata;
  private final int metadataPosition;

  /** The write the put thread writes to, and its memory; replaced at each {@link #detach}. */
  private TableWriteImpl<?> write;

  private WriteMemory memory;

  PaimonTableWriter(
      FileStoreTable table,
      String commitUser,
      RouteSettings route,
      IOManager ioManager,
      TaskWriteBuffer buffer,
      Map<SequenceFloors.Bucket, SequenceFloors.Floor> floors) {
    this.table = table.fullName();
    this.writeOnly = table.copy(Map.of(CoreOptions.WRITE_ONLY.key(), "true"));
    this.commitUser = commitUser;
    this.ioManager = ioManager;
    this.buffer = buffer;
    this.primaryKey = table.primaryKeys();
    this.decoder = new ChangeDecoder(route.input(), primaryKey);
    this.debezium = route.input() == InputMode.DEBEZIUM;
    this.converter = new PaimonRowConverter(table.rowType());
    this.sequenceFields = new CoreOptions(table.options()).sequenceField();
    this.columns = PaimonColumns.of(table);
    this.route = route.name();
    this.metadata = route.kafkaMetadata();
    // With schema-evolution=none a table may lack the column: then no metadata is written.
    this.metadataPosition =
        metadata.enabled() ? table.rowType().getFieldIndex(metadata.column()) : -1;
    this.memory = buffer.open();
    this.write = openWrite(memory);
    try {
      SequenceFloors.apply(write, floors);
    } catch (RuntimeException e) {
      closeQuietly(write, memory);
      throw new IllegalStateException(
          "Cannot number the writer of Paimon table "
              + this.table
              + " above the batches handed in for it: "
              + e.getMessage(),
          e);
    }
    memory.opened();
  }

  /** A new write-only table write whose bucket writers take their pages from {@code pages}. */
  private TableWriteImpl<?> openWrite(WriteMemory pages) {
    try {
      TableWriteImpl<?> opened =
          (TableWriteImpl<?>)
              writeOnly.newStreamWriteBuilder().withCommitUser(commitUser).newWrite();
      opened.withIOManager(ioManager).withMemoryPoolFactory(pages);
      return opened;
    } catch (RuntimeException e) {
      pages.release();
      throw e;
    }
  }

  @Override
  public void write(SinkRecord record) throws RecordConversionException {
    if (primaryKey.isEmpty() && record.value() == null) {
      throw new RecordConversionException(
          "<value>",
          "table "
              + table
              + " is an append table (no primary "
              + "key): a tombstone cannot be applied");
    }
    ChangeDecoder.Change change = decoder.decode(record);
    if (primaryKey.isEmpty() && change.kind() != ChangeDecoder.Kind.INSERT) {
      throw new RecordConversionException(
          "<value>",
          "table "
              + table
              + " is an append table (no primary "
              + "key): a delete or update cannot be applied");
    }
    if (change.keyOnly() && !sequenceFields.isEmpty() && debezium && record.value() == null) {
      return; // Debezium's compaction marker after a delete event, which already carried the row
    }
    if (change.keyOnly() && !sequenceFields.isEmpty()) {
      throw new RecordConversionException(
          sequenceFields.get(0),
          "table "
              + table
              + " orders changes by "
              + "sequence.field "
              + sequenceFields
              + ", which a delete that carries only the Kafka key cannot "
              + "give; Paimon would ignore it");
    }
    if (metadataPosition >= 0 && !change.keyOnly()) {
      metadata.checkNoClash(route, change.row());
    }
    GenericRow row =
        converter.convert(change.row(), rowKind(change.kind()), change.keyOnly(), primaryKey);
    if (metadataPosition >= 0) {
      row.setField(metadataPosition, converter.column(metadataPosition, metadata.valuesOf(record)));
    }
    try {
      write.write(row);
    } catch (Exception e) {
      throw new IllegalStateException(
          "Cannot write to Paimon table " + table + ": " + e.getMessage(), e);
    }
  }

  private static RowKind rowKind(ChangeDecoder.Kind kind) {
    return switch (kind) {
      case INSERT -> RowKind.INSERT;
      case UPDATE_AFTER -> RowKind.UPDATE_AFTER;
      case DELETE -> RowKind.DELETE;
    };
  }

  @Override
  public io.streamhouse.connect.schema.TableColumns columns() {
    return columns;
  }

  /** Takes the files written so far out and closes them here; the writer goes on. */
  @Override
  public PreparedFiles prepare() {
    return detach().close();
  }

  /**
   * Takes the table write with everything written so far out and puts a new one in its place, which
   * goes on numbering every bucket from where the old one stopped ({@link CarriedBuckets}). Quick:
   * no file is touched here. The returned files are flushed (Paimon's prepareCommit) and the old
   * write closed by whoever closes them, on any thread, while records go to the new write. A table
   * whose writers cannot be carried (a dynamic bucket index) is flushed here instead.
   */
  @Override
  public DetachedFiles detach() {
    TableWriteImpl<?> detached = write;
    WriteMemory detachedMemory = memory;
    if (!CarriedBuckets.canCarry(detached)) {
      return DetachedFiles.of(flush(detached));
    }
    detachedMemory.detach();
    WriteMemory nextMemory = buffer.open();
    TableWriteImpl<?> next = null;
    try {
      next = openWrite(nextMemory);
      CarriedBuckets.carry(detached, next);
    } catch (RuntimeException e) {
      // The old write is intact: flush it here and go on with it, as before any detach.
      LOG.warn(
          "Could not carry the bucket writers of Paimon table {} to a new write; its files are "
              + "flushed on the writer's thread: {}",
          table,
          e.toString());
      if (next != null) {
        closeQuietly(next, nextMemory);
      }
      detachedMemory.reattach();
      return DetachedFiles.of(flush(detached));
    }
    nextMemory.opened();
    write = next;
    memory = nextMemory;
    return () -> {
      detachedMemory.closing();
      try {
        return flush(detached);
      } finally {
        closeQuietly(detached, detachedMemory);
      }
    };
  }

  /**
   * Numbers this writer's rows above every row {@code previous} wrote (its files detached, not
   * committed yet): the writer of a table whose schema changed goes on after the old schema's.
   */
  void continueAfter(PaimonTableWriter previous) {
    if (CarriedBuckets.canCarry(previous.write)) {
      CarriedBuckets.carry(previous.write, write);
    }
  }

  /** Paimon's prepareCommit: every bucket writer's buffer becomes a level-0 file. */
  private PreparedFiles flush(TableWriteImpl<?> from) {
    List<CommitMessage> messages;
    try {
      messages =
          from.prepareCommit(false, PREPARE_IDENTIFIER).stream()
              .filter(m -> !((CommitMessageImpl) m).isEmpty())
              .toList();
    } catch (Exception e) {
      throw new IllegalStateException(
          "Cannot flush the writes to Paimon table " + table + ": " + e.getMessage(), e);
    }
    int files = 0;
    long records = 0;
    long bytes = 0;
    for (CommitMessage message : messages) {
      for (DataFileMeta file : ((CommitMessageImpl) message).newFilesIncrement().newFiles()) {
        files++;
        records += file.rowCount();
        bytes += file.fileSize();
      }
    }
    return new PreparedFiles(
        CommitMessagesCodec.VERSION, CommitMessagesCodec.encode(messages), files, records, bytes);
  }

  /**
   * Closing a Paimon write deletes the files it wrote since its last prepare; files of a detached
   * write are deleted by whoever discards them.
   */
  @Override
  public void abort() {
    close();
  }

  @Override
  public void close() {
    try {
      write.close();
    } catch (Exception e) {
      throw new IllegalStateException("Cannot close the writer of Paimon table " + table, e);
    } finally {
      memory.release();
    }
  }

  private void closeQuietly(TableWriteImpl<?> closing, WriteMemory closingMemory) {
    try {
      closing.close();
    } catch (Exception e) {
      LOG.warn("Could not close a detached writer of Paimon table {}: {}", table, e.toString());
    } finally {
      closingMemory.release();
    }
  }
}
