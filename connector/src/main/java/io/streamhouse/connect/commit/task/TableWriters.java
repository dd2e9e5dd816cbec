package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.errors.TableUnavailableException;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.routing.TableRouter.Destination;
import io.streamhouse.connect.schema.EvolutionPlan;
import io.streamhouse.connect.table.DetachedFiles;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableFormat;
import io.streamhouse.connect.table.TableNotFoundException;
import io.streamhouse.connect.table.TableWriter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's open table writers, the offset ranges each holds, the schema plan per record schema, and
 * where each table continues per partition (after what this task wrote or offered, else the table's
 * watermark: invariant <em>skip-what-the-table-has</em>, docs/architecture.md). Not thread-safe:
 * only the thread that owns the task state ({@link TaskState}) calls it.
 */
final class TableWriters {
  private static final Logger LOG = LoggerFactory.getLogger(TableWriters.class);

  /** No position known for a table and partition. */
  private static final long NO_POSITION = TablePositions.NO_POSITION;

  /** What became of a record. */
  enum Written {
    /** In the table's writer. */
    WRITTEN,
    /** The table has it already, or it changes nothing in a table that does not exist yet. */
    SKIPPED,
    /** The table has no writer yet: the caller opens one ({@link #openWriter}) and writes again. */
    NO_WRITER
  }

  /**
   * A writer opened for {@code table} by {@link #openWriter}: empty when the record changes nothing
   * in a table that does not exist yet; {@code notFound} when the table is missing.
   */
  record Opened(TableId table, Optional<TableWriter> writer, TableNotFoundException notFound) {}

  /** Files and offset ranges taken out of one table's writer for a batch. */
  record Detached(
      TableId table,
      Map<TopicPartition, OffsetRange> ranges,
      long maxTimestamp,
      DetachedFiles files) {}

  private final String connector;
  private final int taskId;
  private final Map<String, TableFormat> formats;
  private final FileBudget budget;
  private final Map<TableId, OpenTable> open = new LinkedHashMap<>();
  private final TablePositions positions;
  private final SchemaFollowing schemas;
  private final MissingTables missing = new MissingTables();

  /** Files of writers rolled over by a schema change, for the caller to close and offer. */
  private final List<Detached> rolled = new ArrayList<>();

  /** A table with a writer and the offset ranges it holds. */
  private static final class OpenTable {
    final TableWriter writer;

    /** Per Connect value schema (by identity: converters cache schemas), what the planner said. */
    final Map<Schema, EvolutionPlan> plans = new IdentityHashMap<>();

    final Map<TopicPartition, long[]> ranges = new LinkedHashMap<>(); // tp -> {from, next}
    long maxTimestamp = -1;

    OpenTable(TableWriter writer) {
      this.writer = writer;
    }
  }

  TableWriters(String connector, int taskId, Map<String, TableFormat> formats, FileBudget budget) {
    this.connector = connector;
    this.taskId = taskId;
    this.formats = formats;
    this.budget = budget;
    this.positions = new TablePositions(formats);
    this.schemas = new SchemaFollowing(formats);
  }

  /**
   * Writes {@code record} (of {@code tp}, its original topic-partition) to {@code to.table()},
   * unless that table already has it; {@link Written#NO_WRITER} when the table has no writer yet.
   *
   * @throws RecordConversionException if the value does not fit the table
   */
  Written write(SinkRecord record, TopicPartition tp, Destination to)
      throws RecordConversionException {
    OpenTable table = open.get(to.table());
    if (table != null) {
      return writeTo(table, record, tp, to);
    }
    long position = positions.positionOrNone(to.table(), tp);
    if (position != NO_POSITION && record.originalKafkaOffset() < position) {
      return Written.SKIPPED; // the table has it already
    }
    missing.check(to.table());
    return Written.NO_WRITER;
  }

  /**
   * A new writer of {@code to.table()}, whose first record is {@code record}, for {@link #install}.
   * Called with the task state let go: opening reads the table (a keyed Iceberg table's whole key
   * index, 0.65 s per million keys, docs/iceberg-primary-key-tables.md), and the control thread
   * answers commit requests meanwhile. Reads only this object's final fields, which never change.
   */
  Opened openWriter(SinkRecord record, Destination to) throws RecordConversionException {
    TableFormat format = formats.get(to.table().catalog());
    try {
      return new Opened(
          to.table(), format.openWriter(to.table(), to.route(), record, budget), null);
    } catch (TableNotFoundException e) {
      return new Opened(to.table(), Optional.empty(), e);
    }
  }

  /**
   * Takes the writer {@link #openWriter} opened; false when there is none (the record changes
   * nothing in a table that does not exist yet).
   *
   * @throws TableUnavailableException if the table is missing: the record's fault as much as a bad
   *     value; with errors.tolerance=all it is skipped or lands in the dead-letter table (stage
   *     table), otherwise the task fails with this message
   */
  boolean install(Opened opened) throws TableUnavailableException {
    if (opened.notFound() != null) {
      missing.missing(opened.table(), opened.notFound().getMessage());
      throw new TableUnavailableException(opened.notFound().getMessage(), opened.notFound());
    }
    missing.found(opened.table());
    if (opened.writer().isEmpty()) {
      return false;
    }
    if (open.containsKey(opened.table())) {
      closeQuietly(opened.writer().get()); // only the task's thread opens writers: never here
      return true;
    }
    open.put(opened.table(), new OpenTable(opened.writer().get()));
    return true;
  }

  /** {@link #write} to {@code table}, open. */
  private Written writeTo(OpenTable table, SinkRecord record, TopicPartition tp, Destination to)
      throws RecordConversionException {
    long offset = record.originalKafkaOffset();
    long[] range = table.ranges.get(tp);
    // NO_POSITION, not an OptionalLong: this runs for every record and allocates nothing.
    long position = range != null ? range[1] : positions.positionOrNone(to.table(), tp);
    if (position != NO_POSITION && offset < position) {
      return Written.SKIPPED; // the table has it already
    }
    // A record past the position is normal: the ones between went to other tables (dynamic
    // routing), to the dead-letter queue, or were compacted away. Lost data is the lag monitor's
    // business (log start offset against the committed offset), not a guess from gaps.
    if (!schemas.follows(record, to, table.writer, table.plans)) {
      // The table changed: the writer's files so far go as a batch of the old schema (Iceberg
      // reads old files by field id, Paimon by schema id), a writer of the new schema goes on.
      table = rollOver(record, to, table);
      range = null;
      position = positions.positionOrNone(to.table(), tp);
    }
    table.writer.write(record);
    if (range == null) {
      range = new long[] {position != NO_POSITION ? position : offset, offset + 1};
      table.ranges.put(tp, range);
    } else {
      range[1] = offset + 1;
    }
    if (record.timestamp() != null) {
      table.maxTimestamp = Math.max(table.maxTimestamp, record.timestamp());
    }
    return Written.WRITTEN;
  }

  /**
   * Detaches {@code table}'s files (for the caller to close and offer, see {@link #takeRolled}),
   * closes its writer and opens one of the table's new schema, which {@code record} must follow.
   */
  private OpenTable rollOver(SinkRecord record, Destination to, OpenTable table)
      throws RecordConversionException {
    rolled.add(detach(to.table(), table));
    TableWriter previous = table.writer;
    // Up to 3 turns: a change kept pending (REST catalogs) may no longer fit the table when the
    // writer opens (another task's took its ids); following the record makes it again.
    for (int turn = 1; turn <= 3; turn++) {
      open.remove(to.table());
      OpenTable next;
      try {
        next = openAfter(record, to, previous);
      } finally {
        closeQuietly(previous); // after the first turn, a writer that wrote nothing
      }
      if (next == null) {
        break;
      }
      if (schemas.follows(record, to, next.writer, next.plans)) {
        return next;
      }
      previous = next.writer; // the task fails after the last turn, closing its writers
    }
    throw new IllegalStateException(
        String.format(
            "Connector %s task %d: the new writer of table %s does not follow the schema of the"
                + " record at %s-%d offset %d either",
            connector,
            taskId,
            to.table(),
            record.topic(),
            record.kafkaPartition(),
            record.kafkaOffset()));
  }

  /**
   * A writer of {@code to.table()}'s new schema, going on after {@code previous}; null when {@code
   * record} changes nothing in the table.
   */
  private OpenTable openAfter(SinkRecord record, Destination to, TableWriter previous)
      throws RecordConversionException {
    TableFormat format = formats.get(to.table().catalog());
    missing.check(to.table());
    Opened opened;
    try {
      opened =
          new Opened(
              to.table(),
              format.openWriterAfter(previous, to.table(), to.route(), record, budget),
              null);
    } catch (TableNotFoundException e) {
      opened = new Opened(to.table(), Optional.empty(), e);
    }
    return install(opened) ? open.get(to.table()) : null;
  }

  /**
   * {@code record} went to the dead-letter queue instead of {@code to.table()}: the table's range
   * takes it in, so that once the next batch commits, a re-read skips it instead of reporting it
   * again.
   */
  void skipped(SinkRecord record, TopicPartition tp, Destination to) {
    OpenTable table = open.get(to.table());
    if (table == null) {
      return; // no writer yet: the table's first range starts at its first written record
    }
    long offset = record.originalKafkaOffset();
    long[] range = table.ranges.get(tp);
    if (range == null) {
      OptionalLong position = positions.position(to.table(), tp);
      if (position.isPresent() && offset < position.getAsLong()) {
        return;
      }
      table.ranges.put(
          tp, new long[] {position.isPresent() ? position.getAsLong() : offset, offset + 1});
    } else if (offset >= range[1]) {
      range[1] = offset + 1;
    }
  }

  /**
   * Where all of {@code destinations} continue for {@code tp}: the lowest of their positions. Empty
   * if one of them has none: a table that does not exist yet, or never had a record of {@code tp}.
   */
  OptionalLong commonPosition(TopicPartition tp, List<Destination> destinations) {
    long lowest = Long.MAX_VALUE;
    for (Destination to : destinations) {
      OpenTable table = open.get(to.table());
      long[] range = table == null ? null : table.ranges.get(tp);
      OptionalLong position =
          range != null ? OptionalLong.of(range[1]) : positions.position(to.table(), tp);
      if (position.isEmpty()) {
        return OptionalLong.empty();
      }
      lowest = Math.min(lowest, position.getAsLong());
    }
    return destinations.isEmpty() ? OptionalLong.empty() : OptionalLong.of(lowest);
  }

  /** See {@link TablePositions#adopt}. */
  void adopt(TableId id, TopicPartition tp, long end) {
    positions.adopt(id, tp, end);
  }

  /** See {@link TablePositions#dropAdopted}. */
  void dropAdopted(Collection<TopicPartition> partitions) {
    positions.dropAdopted(partitions);
  }

  /** See {@link TablePositions#forget}. */
  void forget(Collection<TopicPartition> partitions) {
    positions.forget(partitions);
  }

  /**
   * Takes the written files and offset ranges out of every table that took records since the last
   * time; the writers go on after them.
   */
  List<Detached> detachAll() {
    List<Detached> detached = new ArrayList<>(rolled);
    rolled.clear();
    for (Map.Entry<TableId, OpenTable> e : open.entrySet()) {
      if (!e.getValue().ranges.isEmpty()) { // else nothing written or skipped since the last time
        detached.add(detach(e.getKey(), e.getValue()));
      }
    }
    return detached;
  }

  /** The writers rolled over by schema changes since the last call. */
  List<Detached> takeRolled() {
    List<Detached> taken = List.copyOf(rolled);
    rolled.clear();
    return taken;
  }

  /** Takes the written files and offset ranges out of {@code table}'s writer. */
  private Detached detach(TableId id, OpenTable table) {
    DetachedFiles files = table.writer.detach();
    Map<TopicPartition, OffsetRange> ranges = new LinkedHashMap<>();
    table.ranges.forEach(
        (tp, r) -> {
          ranges.put(tp, new OffsetRange(r[0], r[1]));
          positions.offered(id, tp, r[1]);
        });
    table.ranges.clear();
    Detached detached = new Detached(id, ranges, table.maxTimestamp, files);
    table.maxTimestamp = -1;
    return detached;
  }

  /** Lowers {@code offsets} to the first offset each open range holds. */
  void holdBack(Map<TopicPartition, Long> offsets) {
    for (OpenTable table : open.values()) {
      table.ranges.forEach((tp, r) -> offsets.merge(tp, r[0], Math::min));
    }
  }

  /** Aborts every writer and forgets the known positions: the task starts over. */
  void abortAll() {
    rolled.clear(); // empty: the caller takes the rolled-over files after each write
    for (OpenTable table : open.values()) {
      try {
        table.writer.abort();
      } catch (RuntimeException e) {
        LOG.warn("Could not abort a writer: {}", e.toString());
      }
    }
    open.clear();
    positions.clear();
  }

  /** True when some table took records (or skipped some) since it was last detached. */
  boolean anyWritten() {
    if (!rolled.isEmpty()) {
      return true;
    }
    for (OpenTable table : open.values()) {
      if (!table.ranges.isEmpty()) {
        return true;
      }
    }
    return false;
  }

  /** True while some table has a writer (records written since the last reset). */
  boolean any() {
    return !open.isEmpty();
  }

  void closeAll() {
    open.values().forEach(table -> closeQuietly(table.writer));
    open.clear();
  }

  private void closeQuietly(TableWriter writer) {
    try {
      writer.close();
    } catch (RuntimeException e) {
      LOG.warn("Could not close a writer: {}", e.toString());
    }
  }
}
