package io.streamhouse.connect.table.iceberg;

import static java.util.stream.Collectors.toUnmodifiableSet;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.decode.KafkaMetadata;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.schema.TableColumns;
import io.streamhouse.connect.table.DetachedFiles;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The data files of one task for one Iceberg table, per partition value: rows are first held in
 * memory, and a partition turns into an open rolling file that takes its rows as they come once it
 * is hot: at its first run of rows when they are at least an eighth of the rows the task wrote (all
 * its tables) since the partition began, or when it had an open file when the files were last taken
 * (a commit), and otherwise once it holds an eighth of the task's {@link FileBudget}. Cold
 * partitions (a task fanning out to hundreds of tables) thus cost only their rows, not the page and
 * compressor buffers of an open Parquet file (up to a page per column), and every partition is
 * charged to the budget, which writes out the one holding the most when the task's memory is full:
 * files of a fair share of the budget, never one per record. At the commit the held rows are
 * written out on the committing thread.
 */
final class IcebergTableWriter implements TableWriter {
  private static final Object UNPARTITIONED = new Object();

  private final Table table;
  private final TableColumns columns;
  private final FileBudget budget;
  private final IcebergRecordConverter converter;
  private final GenericFileWriterFactory writerFactory;
  private final OutputFileFactory fileFactory;
  private final long targetFileSize;
  private final PartitionSpec spec;
  private final PartitionKey partitionKey;
  private final InternalRecordWrapper wrapper;

  /**
   * Open partitions by their key; the one partition of an unpartitioned table under {@link
   * #UNPARTITIONED}.
   */
  private final Map<Object, PartitionFile> open = new HashMap<>();

  /**
   * An unpartitioned table's one open partition, also in {@link #open}; null when there is none.
   * Each row of an unpartitioned table takes it from here, without a partition key or a lookup.
   */
  private PartitionFile unpartitioned;

  private final RowSizes rowSizes = new RowSizes();

  /**
   * What an open file costs before its first row: its column writers' page and compressor buffers.
   */
  private final long openFileBytes;

  /** A partition holding this much turns into an open file. */
  private final long streamingBytes;

  /**
   * A partition whose rows are at least this share (1/n) of the rows the task wrote since it began
   * is hot at its first look: a table taking most of a task's records does not hold {@link
   * #streamingBytes} of rows (some 75,000 of 15 columns) in every task's first round and after
   * every rebalance, live through young collections and written out at once by a hand-in.
   */
  private static final int HOT_SHARE = 8;

  /**
   * The keys of the partitions that had an open file when the files were last taken: a partition
   * hot in the last round opens its next file at its first look, instead of holding {@link
   * #streamingBytes} of rows again in every round (rows held live through young collections and are
   * copied by them).
   */
  private Set<Object> openWhenTaken = Set.of();

  private final List<DataFile> finished = new ArrayList<>();

  /** The route's name, its Kafka metadata, and the position of its column (-1: none to write). */
  private final String route;

  private final KafkaMetadata metadata;
  private final int metadataPosition;

  /** {@code converter}: for {@code table}'s schema ({@link IcebergConverters}). */
  IcebergTableWriter(
      Table table,
      int taskId,
      FileBudget budget,
      RouteSettings route,
      IcebergRecordConverter converter) {
    this.table = table;
    this.route = route.name();
    this.metadata = route.kafkaMetadata();
    this.metadataPosition = DataWriterFactories.metadataPosition(table.schema(), metadata);
    this.budget = budget;
    this.converter = converter;
    this.columns = IcebergColumns.of(table);
    this.writerFactory = DataWriterFactories.forTable(table);
    this.fileFactory = DataWriterFactories.outputFiles(table, taskId);
    this.targetFileSize = DataWriterFactories.targetFileSize(table);
    this.spec = table.spec();
    this.partitionKey = new PartitionKey(spec, table.schema());
    this.wrapper = new InternalRecordWrapper(table.schema().asStruct());
    this.openFileBytes = DataWriterFactories.openFileBytes(table);
    this.streamingBytes = Math.max(budget.maxBytes() / 8, openFileBytes * 2);
  }

  @Override
  public void write(SinkRecord record) throws RecordConversionException {
    if (metadataPosition >= 0) {
      metadata.checkNoClash(route, record.value());
    }
    Record row = converter.convert(record.value());
    if (metadataPosition >= 0) {
      row.set(metadataPosition, converter.column(metadataPosition, metadata.valuesOf(record)));
    }
    PartitionFile file;
    PartitionKey key = null;
    if (spec.isUnpartitioned()) {
      file = unpartitioned;
    } else {
      partitionKey.partition(wrapper.wrap(row));
      file = open.get(partitionKey);
      key = file == null ? partitionKey.copy() : null;
    }
    if (file == null) {
      file = new PartitionFile(key);
      open.put(file.mapKey, file);
      if (key == null) {
        unpartitioned = file;
      }
      budget.opened(file, 0); // may close another file, never this new one
    }
    file.write(row, rowSizes.of(row)); // charges the budget last: it may close this very file
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
   * Takes the open and finished files out of this writer, under the caller's lock; the task goes on
   * writing new files while another thread closes these (closing writes the buffered pages).
   */
  @Override
  public DetachedFiles detach() {
    Supplier<List<DataFile>> taken = takeFiles();
    return () -> {
      List<DataFile> files = taken.get();
      long records = files.stream().mapToLong(DataFile::recordCount).sum();
      long bytes = files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
      Optional<Schema> schema = PendingSchemas.carried(table, files);
      return new PreparedFiles(
          DataFilesCodec.version(schema),
          DataFilesCodec.encode(files, table.specs(), schema),
          files.size(),
          records,
          bytes);
    };
  }

  @Override
  public void abort() {
    List<PartitionFile> files = List.copyOf(open.values());
    open.clear();
    unpartitioned = null;
    files.forEach(budget::release);
    List<DataFile> done = new ArrayList<>(finished);
    finished.clear();
    for (PartitionFile file : files) {
      done.addAll(file.dropRows()); // held rows need no file; an open file is closed to be deleted
    }
    done.forEach(f -> table.io().deleteFile(f.location()));
  }

  /**
   * Takes the partitions and finished files out of this writer; the returned supplier writes out
   * the held rows, closes the open files (on any thread) and returns every data file. If one cannot
   * be closed, the others are deleted (none was offered, so no snapshot holds them) and the failure
   * is thrown.
   */
  private Supplier<List<DataFile>> takeFiles() {
    List<PartitionFile> files = List.copyOf(open.values());
    openWhenTaken = openPartitions();
    open.clear();
    unpartitioned = null;
    files.forEach(budget::release);
    List<DataFile> done = List.copyOf(finished);
    finished.clear();
    return () -> {
      List<DataFile> all = new ArrayList<>(done);
      RuntimeException failure = null;
      for (PartitionFile file : files) {
        try {
          all.addAll(file.closeFile());
        } catch (RuntimeException e) {
          failure = failure == null ? e : failure;
        }
      }
      if (failure != null) {
        all.forEach(f -> IcebergFormat.deleteQuietly(table, f.location()));
        throw failure;
      }
      return all;
    };
  }

  @Override
  public void close() {
    abort();
  }

  /** The keys of the partitions with an open file (the others hold their rows). */
  Set<Object> openPartitions() {
    return open.values().stream()
        .filter(PartitionFile::isOpen)
        .map(f -> f.mapKey)
        .collect(toUnmodifiableSet());
  }

  /**
   * One partition value: its rows held in memory, or, once hot (see the class), an open rolling
   * file. Closing it writes what it holds and keeps the files as finished.
   *
   * <p>While it holds its rows, the partition looks at them every {@link #RUN} rows, enough to
   * judge its share of the task's rows: it opens its file once it is hot and hands it the held
   * rows. Once its file is open, each row goes straight to the file.
   */
  private final class PartitionFile implements FileBudget.OpenFile {
    /** Rows held between two looks while no file is open. */
    private static final int RUN = 256;

    private final PartitionKey key;

    /** Its key in {@link #open}. */
    private final Object mapKey;

    /** The rows held while no file is open. */
    private List<Record> rows = new ArrayList<>();

    private RollingDataWriter<Record> writer;
    private long buffered;
    private int lookAt = RUN;

    /** Whether its partition had an open file when the files were last taken. */
    private final boolean wasOpen;

    /** The bytes of the rows the task had written (all its tables) before this partition's. */
    private final long writtenBefore;

    PartitionFile(PartitionKey key) {
      this.key = key;
      this.mapKey = key == null ? UNPARTITIONED : key;
      this.wasOpen = openWhenTaken.contains(mapKey);
      this.writtenBefore = budget.written();
    }

    boolean isOpen() {
      return writer != null;
    }

    void write(Record row, long size) {
      buffered += size;
      budget.wrote(size);
      long charge = size;
      if (writer != null) {
        charge += writeToFile(row);
      } else {
        rows.add(row);
        if (rows.size() >= lookAt) {
          charge += look();
        }
      }
      budget.charge(charge); // last: the budget may close this very file
    }

    /** Opens the file of a hot partition and hands it the held rows; the change in the charge. */
    private long look() {
      if (buffered < streamingBytes && !wasOpen && !takesAHotShare()) {
        lookAt = rows.size() + RUN;
        return 0;
      }
      writer = newWriter(); // a hot partition: its rows go to an open file from now on
      buffered += openFileBytes;
      return openFileBytes + writeHeld();
    }

    /**
     * Whether the rows it holds (all its rows: no file of it is open) are at least a {@link
     * #HOT_SHARE}th of the rows the task wrote since it began.
     */
    private boolean takesAHotShare() {
      return buffered * HOT_SHARE >= budget.written() - writtenBefore;
    }

    /** Hands the held rows to the open file; the change in the charge if it finished a file. */
    private long writeHeld() {
      if (rows.isEmpty()) {
        return 0;
      }
      long charge = 0;
      for (Record held : rows) {
        charge += writeToFile(held);
      }
      rows = new ArrayList<>(); // let the array of the rows held before the file opened go
      return charge;
    }

    /** Writes {@code row} to the open file; the change in the charge if it finished a file. */
    private long writeToFile(Record row) {
      writer.write(row);
      if (writer.currentFileRows() != 0) {
        return 0;
      }
      // The rolling writer finished a file at the target size: its rows are on disk now.
      long charge = openFileBytes - buffered;
      buffered = openFileBytes;
      return charge;
    }

    private RollingDataWriter<Record> newWriter() {
      return new RollingDataWriter<>(
          writerFactory, fileFactory, table.io(), targetFileSize, spec, key);
    }

    @Override
    public long bufferedBytes() {
      return buffered;
    }

    @Override
    public void closeEarly() {
      if (open.remove(mapKey) != this) {
        return;
      }
      if (unpartitioned == this) {
        unpartitioned = null;
      }
      finished.addAll(closeFile());
    }

    /** Writes out the held rows, or closes the open file; the data files of this partition. */
    List<DataFile> closeFile() {
      if (writer == null) {
        if (rows.isEmpty()) {
          return List.of();
        }
        writer = newWriter();
      }
      writeHeld(); // no charge: the budget has let this file go
      RollingDataWriter<Record> out = writer;
      try {
        out.close();
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot close a data file of table " + table.name(), e);
      }
      writer = null;
      buffered = 0;
      lookAt = RUN;
      return out.result().dataFiles();
    }

    /** Drops the held rows; the files of an open writer, closed, for the caller to delete. */
    List<DataFile> dropRows() {
      rows = new ArrayList<>();
      return writer == null ? List.of() : closeFile();
    }
  }
}
