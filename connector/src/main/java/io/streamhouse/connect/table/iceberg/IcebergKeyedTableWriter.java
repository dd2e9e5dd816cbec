package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.decode.ChangeDecoder;
import io.streamhouse.connect.decode.Envelopes;
import io.streamhouse.connect.decode.KafkaMetadata;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.schema.TableColumns;
import io.streamhouse.connect.table.DetachedFiles;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.SnapshotKeys;
import io.streamhouse.connect.table.TableWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The rows of one task for one keyed Iceberg table (identifier fields): every change writes the
 * key's new row (or none, for a delete) and deletes the key's previous row by position, which the
 * {@link KeyIndex} knows, so the table holds exactly one live row per key after each commit and no
 * reader ever meets an equality delete. A key changed several times within one batch leaves one
 * row: the earlier rows of the batch are deleted by position too (a position delete applies to the
 * data files of its own snapshot). The batch carries what the index was read from; the coordinator
 * commits it only if no other writer brought rows of its partitions since (see {@code
 * IcebergFormat#commit}).
 */
final class IcebergKeyedTableWriter implements TableWriter {
  private final Table table;
  private final TableColumns columns;
  private final FileBudget budget;
  private final IcebergRecordConverter converter;
  private final ChangeDecoder decoder;
  private final GenericFileWriterFactory writerFactory;
  private final OutputFileFactory fileFactory;
  private final long targetFileSize;
  private final PartitionSpec spec;
  private final PartitionKey partitionKey;
  private final InternalRecordWrapper wrapper;
  private final RowSizes rowSizes = new RowSizes();
  private final String route;
  private final KafkaMetadata metadata;
  private final int metadataPosition;
  private final List<String> keyNames;
  private final int[] keyPositions;
  private final SnapshotKeys keys;

  /** The route's order-by column, which drops changes older than their key's row. */
  private final OrderColumn order;

  /** Replaced when the index moves past a compaction (the snapshot it is good for changes). */
  private Base base;

  private final Map<PartitionKey, OpenDataFile> open = new HashMap<>();
  private final List<DataFile> finished = new ArrayList<>();

  /** Packed positions (see {@link KeyIndex#pack}) of rows this batch deletes. */
  private List<Long> deletes = new ArrayList<>();

  /** The keys this batch changed: an outside writer's row of one must go too. */
  private final BatchChanges changes;

  /** The keys this batch changed that the index had no row of: other writers' batches may too. */
  private final UnseenKeys unseen = new UnseenKeys();

  /** The key index and what it was read from; handed on to the writer after a schema change. */
  record Base(
      KeyIndex index, long writer, long snapshot, Watermarks watermarks, Watermarks writers) {}

  /**
   * {@code keys}: the summary keys of the connector's commits and of the {@link RewriteMap}s of its
   * compactions, with which the writer moves its index past what others committed.
   */
  IcebergKeyedTableWriter(
      Table table,
      int taskId,
      FileBudget budget,
      RouteSettings route,
      Base base,
      SnapshotKeys keys) {
    this.table = table;
    this.keys = keys;
    this.budget = budget;
    this.base = base;
    this.changes = new BatchChanges(base.index().fileCount());
    this.route = route.name();
    this.metadata = route.kafkaMetadata();
    Schema schema = table.schema();
    this.converter = new IcebergRecordConverter(schema);
    this.columns = IcebergColumns.of(table);
    this.writerFactory = DataWriterFactories.forTable(table);
    this.fileFactory = DataWriterFactories.outputFiles(table, taskId);
    this.targetFileSize = DataWriterFactories.targetFileSize(table);
    this.spec = table.spec();
    this.partitionKey = new PartitionKey(spec, schema);
    this.wrapper = new InternalRecordWrapper(schema.asStruct());
    List<Integer> keyIds = KeyIndex.keyIds(schema);
    this.keyNames = keyIds.stream().map(id -> schema.findField(id).name()).toList();
    this.keyPositions = new int[keyIds.size()];
    List<Types.NestedField> top = schema.columns();
    for (int i = 0; i < keyIds.size(); i++) {
      for (int c = 0; c < top.size(); c++) {
        if (top.get(c).fieldId() == keyIds.get(i)) {
          keyPositions[i] = c;
        }
      }
    }
    this.metadataPosition = DataWriterFactories.metadataPosition(schema, metadata);
    this.decoder = new ChangeDecoder(route.input(), keyNames);
    this.order = OrderColumn.of(schema, route, table.name(), base.index().ordered());
  }

  Base base() {
    return base;
  }

  @Override
  public void write(SinkRecord record) throws RecordConversionException {
    ChangeDecoder.Change change = decoder.decode(record);
    KeyIndex index = base.index();
    if (change.kind() == ChangeDecoder.Kind.DELETE) {
      Object[] key = new Object[keyPositions.length];
      for (int i = 0; i < key.length; i++) {
        Object value = Envelopes.field(change.row(), keyNames.get(i));
        key[i] = value == null ? null : converter.column(keyPositions[i], value);
        if (key[i] == null) {
          throw new RecordConversionException(
              keyNames.get(i), "primary key field '" + keyNames.get(i) + "' is missing or null");
        }
      }
      long[] hash = index.hash().of(key);
      if (order.deletesOlder(change, converter, index, hash)) {
        return; // deletes a row older than the one the table holds
      }
      changes.deleted(hash);
      long previous = index.remove(hash);
      if (previous != KeyPositions.NONE) {
        deletes.add(previous);
      } else {
        unseen.add(hash);
      }
      return;
    }
    if (metadataPosition >= 0) {
      metadata.checkNoClash(route, change.row());
    }
    Record row = converter.convert(change.row());
    if (metadataPosition >= 0) {
      row.set(metadataPosition, converter.column(metadataPosition, metadata.valuesOf(record)));
    }
    Object[] key = KeyHash.values(row, keyPositions);
    for (int i = 0; i < key.length; i++) {
      if (key[i] == null) {
        throw new RecordConversionException(
            keyNames.get(i), "primary key field '" + keyNames.get(i) + "' is missing or null");
      }
    }
    long[] hash = index.hash().of(key);
    long rowOrder = order.of(row);
    if (order.older(index, hash, rowOrder)) {
      return;
    }
    OpenDataFile file;
    PartitionKey partition = null;
    if (spec.isUnpartitioned()) {
      file = open.get(null);
    } else {
      partitionKey.partition(wrapper.wrap(row));
      file = open.get(partitionKey);
      partition = file == null ? partitionKey.copy() : null;
    }
    if (file == null) {
      file = new OpenDataFile(partition);
      open.put(partition, file);
      budget.opened(file, 0);
    }
    long position = file.write(row, rowSizes.of(row)); // may close the file: position stays
    long previous = index.put(hash, position, rowOrder);
    if (previous != KeyPositions.NONE) {
      deletes.add(previous);
    } else {
      unseen.add(hash);
    }
  }

  @Override
  public TableColumns columns() {
    return columns;
  }

  @Override
  public PreparedFiles prepare() {
    return detach().close();
  }

  /**
   * Takes this batch's files and deletes out of the writer (under the caller's lock): data files
   * are closed and the position delete files written by whoever closes the result.
   */
  @Override
  public DetachedFiles detach() {
    List<OpenDataFile> files = List.copyOf(open.values());
    open.clear();
    files.forEach(budget::release);
    List<DataFile> done = List.copyOf(finished);
    finished.clear();
    List<Long> taken = deletes;
    deletes = new ArrayList<>();
    taken.addAll(base.index().takeDuplicates());
    UnseenKeys.Taken unseenKeys = unseen.take();
    order.logDropped(table.name(), route);
    long snapshot =
        KeyIndexCatchUp.catchUp(
            table,
            keys,
            base.snapshot(),
            base.index(),
            taken,
            changes.keys(base.index()),
            unseenKeys);
    taken.addAll(base.index().takeDuplicates()); // found by the catch-up
    changes.next(base.index().fileCount());
    if (snapshot != base.snapshot()) {
      base = new Base(base.index(), base.writer(), snapshot, base.watermarks(), base.writers());
    }
    Base batchBase = base;
    Optional<String> keyChange = KeyIndexCatchUp.keyChange(table, base.index(), route);
    if (keyChange.isPresent()) {
      // Written by the old key: the task starts over and reads an index by the new one.
      List<DataFile> written = new ArrayList<>(done);
      return () -> {
        for (OpenDataFile file : files) {
          written.addAll(file.close());
        }
        written.forEach(f -> deleteQuietly(f.location()));
        throw new IllegalStateException(keyChange.get());
      };
    }
    // Resolve file references now: the index goes on adding files on the writer's thread.
    Map<String, KeyIndex.FileRef> refs = new LinkedHashMap<>();
    Map<String, List<Long>> byFile = new TreeMap<>();
    for (long packed : taken) {
      KeyIndex.FileRef ref = base.index().file(KeyIndex.fileOf(packed));
      refs.putIfAbsent(ref.location(), ref);
      byFile.computeIfAbsent(ref.location(), l -> new ArrayList<>()).add(KeyIndex.rowOf(packed));
    }
    return () -> {
      List<DataFile> data = new ArrayList<>(done);
      for (OpenDataFile file : files) {
        data.addAll(file.close());
      }
      List<DeleteFile> deleteFiles =
          PositionDeleteFiles.write(table, writerFactory, fileFactory, refs, byFile);
      long records = data.stream().mapToLong(DataFile::recordCount).sum();
      long bytes =
          data.stream().mapToLong(DataFile::fileSizeInBytes).sum()
              + deleteFiles.stream().mapToLong(DeleteFile::fileSizeInBytes).sum();
      KeyedFilesCodec.KeyedFiles keyed =
          new KeyedFilesCodec.KeyedFiles(
              data,
              deleteFiles,
              List.copyOf(byFile.keySet()),
              batchBase.writer(),
              batchBase.snapshot(),
              batchBase.watermarks(),
              batchBase.writers(),
              unseenKeys.hashes(),
              PendingSchemas.carried(table, data));
      return new PreparedFiles(
          KeyedFilesCodec.version(keyed),
          KeyedFilesCodec.encode(keyed, table.specs()),
          data.size() + deleteFiles.size(),
          records,
          bytes);
    };
  }

  @Override
  public void abort() {
    List<OpenDataFile> files = List.copyOf(open.values());
    open.clear();
    files.forEach(budget::release);
    List<DataFile> done = new ArrayList<>(finished);
    finished.clear();
    for (OpenDataFile file : files) {
      done.addAll(file.close());
    }
    done.forEach(f -> deleteQuietly(f.location()));
    deletes = new ArrayList<>();
    unseen.take();
  }

  private void deleteQuietly(String location) {
    try {
      table.io().deleteFile(location);
    } catch (RuntimeException e) {
      // best effort: an orphan file, not in any snapshot
    }
  }

  @Override
  public void close() {
    abort();
  }

  /** The open data file of one partition value; its rows' positions are their order in it. */
  private final class OpenDataFile implements FileBudget.OpenFile {
    private final PartitionKey key;
    private DataWriter<Record> writer;
    private int ordinal;
    private long rows;
    private long buffered;

    OpenDataFile(PartitionKey key) {
      this.key = key;
    }

    /** Writes {@code row}; its packed position. */
    long write(Record row, long size) {
      if (writer == null) {
        EncryptedOutputFile out =
            key == null ? fileFactory.newOutputFile() : fileFactory.newOutputFile(spec, key);
        ordinal =
            base.index()
                .add(
                    new KeyIndex.FileRef(
                        out.encryptingOutputFile().location(),
                        spec,
                        key == null ? null : key.copy(),
                        KeyIndex.OWN));
        base.index().own().wrote(out.encryptingOutputFile().location());
        writer = writerFactory.newDataWriter(out, spec, key);
        rows = 0;
      }
      writer.write(row); // first: a row the file refused takes no position
      long position = KeyIndex.pack(ordinal, rows++);
      buffered += size;
      budget.wrote(size); // counts in the task's rows that tell an append table's hot partitions
      budget.charge(size);
      if (rows % 1000 == 0 && writer.length() >= targetFileSize) {
        long freed = buffered;
        finished.addAll(closeWriter()); // a full file: the next row starts another
        budget.charge(-freed);
      }
      return position;
    }

    @Override
    public long bufferedBytes() {
      return buffered;
    }

    /** The budget took this file out already: the partition's next row opens another. */
    @Override
    public void closeEarly() {
      open.remove(key, this);
      finished.addAll(closeWriter());
    }

    List<DataFile> close() {
      return closeWriter();
    }

    private List<DataFile> closeWriter() {
      DataWriter<Record> out = writer;
      if (out == null) {
        return List.of();
      }
      writer = null;
      buffered = 0;
      try {
        out.close();
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot close a data file of table " + table.name(), e);
      }
      return List.of(out.toDataFile());
    }
  }
}
