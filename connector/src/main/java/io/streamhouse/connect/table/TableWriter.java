package io.streamhouse.connect.table;

import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.schema.TableColumns;
import org.apache.kafka.connect.sink.SinkRecord;

/** Writes the records of one task for one table into data files; not thread-safe. */
public interface TableWriter extends AutoCloseable {
  /**
   * Converts and buffers one record.
   *
   * @throws RecordConversionException if the value does not fit the table (the caller reports it
   *     with connector, topic, partition, offset and table)
   */
  void write(SinkRecord record) throws RecordConversionException;

  /** The table's columns as this writer writes them (its schema when it was opened). */
  TableColumns columns();

  /** Closes the open files and returns them, serialized, without committing anything. */
  PreparedFiles prepare();

  /**
   * Takes the files written so far out of this writer, which goes on with new files; the returned
   * files are closed by whoever calls {@link DetachedFiles#close()}, on any thread. By default they
   * are prepared here, on the writer's thread.
   */
  default DetachedFiles detach() {
    return DetachedFiles.of(prepare());
  }

  /** Drops everything written since the last {@link #prepare()} and deletes its files. */
  void abort();

  @Override
  void close();
}
