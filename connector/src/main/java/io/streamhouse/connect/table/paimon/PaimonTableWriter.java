package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.convert.InputMode;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.table.TableWriter;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.memory.MemoryPoolFactory;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.RowKind;

/**
 * The writes of one task to one Paimon table, in {@code write-only} mode: no compaction and no
 * snapshot expiry here, the coordinator does both. Files are written under the connector's commit
 * user and handed to the coordinator as serialized commit messages.
 *
 * <p>The writer's sequence numbers start above what the table held when it was created, and the
 * task creates it only after it loaded the table's watermarks; together with the contiguity check
 * this keeps a key's later write above its earlier ones across tasks (see the README).
 */
final class PaimonTableWriter implements TableWriter {
  /**
   * Identifier given to {@code prepareCommit}: above any real commit identifier, so that Paimon
   * never closes a bucket writer whose files are still uncommitted (its idle-writer cleanup
   * compares this with the last committed identifier). It is never committed.
   */
  private static final long PREPARE_IDENTIFIER = Long.MAX_VALUE - 1;

  private final String table;
  private final TableWriteImpl<?> write;
  private final ChangeDecoder decoder;
  private final PaimonRowConverter converter;
  private final List<String> primaryKey;
  private final List<String> sequenceFields;
  private final boolean debezium;
  private final io.streamhouse.connect.schema.TableColumns columns;

  PaimonTableWriter(
      FileStoreTable table,
      String commitUser,
      RouteSettings route,
      IOManager ioManager,
      MemoryPoolFactory memory) {
    this.table = table.fullName();
    FileStoreTable writeOnly = table.copy(Map.of(CoreOptions.WRITE_ONLY.key(), "true"));
    this.write =
        (TableWriteImpl<?>) writeOnly.newStreamWriteBuilder().withCommitUser(commitUser).newWrite();
    write.withIOManager(ioManager).withMemoryPoolFactory(memory);
    this.primaryKey = table.primaryKeys();
    this.decoder = new ChangeDecoder(route.input(), primaryKey);
    this.debezium = route.input() == InputMode.DEBEZIUM;
    this.converter = new PaimonRowConverter(table.rowType());
    this.sequenceFields = new CoreOptions(table.options()).sequenceField();
    this.columns = PaimonColumns.of(table);
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
    if (primaryKey.isEmpty() && change.kind() != RowKind.INSERT) {
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
    GenericRow row = converter.convert(change.row(), change.kind(), change.keyOnly(), primaryKey);
    try {
      write.write(row);
    } catch (Exception e) {
      throw new IllegalStateException(
          "Cannot write to Paimon table " + table + ": " + e.getMessage(), e);
    }
  }

  @Override
  public io.streamhouse.connect.schema.TableColumns columns() {
    return columns;
  }

  @Override
  public PreparedFiles prepare() {
    List<CommitMessage> messages;
    try {
      messages =
          write.prepareCommit(false, PREPARE_IDENTIFIER).stream()
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

  /** Closing a Paimon write deletes the files it wrote since its last prepare. */
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
    }
  }
}
