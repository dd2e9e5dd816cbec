package io.streamhouse.connect.table;

import io.streamhouse.connect.config.MaintenanceSettings;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.CompactionResult;
import io.streamhouse.connect.protocol.MaintenanceReport;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.schema.EvolutionMode;
import io.streamhouse.connect.schema.FieldType;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * One catalog of one table format, as a task or the coordinator uses it. Implementations live in
 * {@code table.iceberg} and {@code table.paimon}; nothing outside them imports a format library.
 */
public interface TableFormat extends AutoCloseable {
  /**
   * A writer for {@code table}, creating the table from {@code sample}'s schema when it is missing
   * and the route allows it. Empty when the table is missing and {@code sample} would not change it
   * (a delete: there is no row to delete yet), so that no table is created from it.
   *
   * @throws TableNotFoundException if the table is missing and auto-create is off
   * @throws RecordConversionException if {@code sample} cannot define a missing table (the caller
   *     reports it like any record that does not fit)
   */
  Optional<TableWriter> openWriter(
      TableId table, RouteSettings route, SinkRecord sample, FileBudget budget)
      throws RecordConversionException;

  /**
   * A writer of {@code table}'s current schema that goes on after {@code previous}, whose files
   * were detached when the schema changed. A format whose rows carry sequence numbers numbers the
   * new writer's rows above every row {@code previous} wrote, which are not committed yet. By
   * default, a new writer.
   */
  default Optional<TableWriter> openWriterAfter(
      TableWriter previous,
      TableId table,
      RouteSettings route,
      SinkRecord sample,
      FileBudget budget)
      throws RecordConversionException {
    return openWriter(table, route, sample, budget);
  }

  /**
   * Whether a task that takes over partitions may write to {@code table} right after {@code files}:
   * another task's batch of the table, handed in and not decided yet; and what it must do first.
   * Empty: the task waits for the batch's decision before it reads on. The files come from the
   * control topic, untrusted: a payload that cannot be read gives empty. By default empty.
   */
  default Optional<WriteAfter> writeAfter(TableId table, PreparedFiles files) {
    return Optional.empty();
  }

  /**
   * Changes {@code table} so that it takes rows of {@code row}: plans against the table's current
   * schema (another task may have changed it already; then nothing is left to do) and applies the
   * plan, retrying when a concurrent change wins. A rejected plan changes nothing.
   *
   * @throws RecordConversionException if the table cannot follow {@code row} (the planner's reason)
   */
  void evolve(TableId table, FieldType.Struct row, EvolutionMode mode)
      throws RecordConversionException;

  /** The watermarks in the table's latest snapshot written by this connector. */
  Watermarks watermarks(TableId table);

  /**
   * Whether the writer that prepared {@code files} counts on them being committed (a keyed Iceberg
   * table's key index holds their rows): when another writer's commit made them already present (a
   * hand-over, a zombie), the task must start over rather than write on after them. By default no.
   */
  default boolean writerCountsOn(PreparedFiles files) {
    return false;
  }

  /**
   * Commits {@code batches} (written records, each with its offset ranges) to {@code table} in one
   * snapshot under invariant <em>contiguity</em> (docs/architecture.md): the contiguity check and
   * the snapshot are atomic; batches already in are acknowledged, others rejected.
   */
  CommitOutcome commit(TableId table, long commitId, List<OfferedBatch> batches, boolean fullRound);

  /**
   * Commits the results of compaction jobs (from this format's {@link #compact}) to {@code table},
   * on the coordinator, between its rounds: per job id, whether its result was applied or rejected
   * (a result that fails the file checks, or whose merged files are gone). The snapshots keep the
   * connector's watermarks as they are. Formats that never hand out jobs ({@link
   * CommitOutcome#compactions} always empty) do not implement it.
   */
  default Map<String, BatchPlan.Decision> commitCompactions(
      TableId table, long commitId, List<CompactionResult> results) {
    throw new UnsupportedOperationException("table " + table + " has no compaction jobs");
  }

  /**
   * How this catalog commits a round's tables together, when it is set to ({@code
   * catalog.<name>.commit.atomic}); by default it commits each table on its own.
   */
  default Optional<AtomicRounds> atomicRounds() {
    return Optional.empty();
  }

  /**
   * Whether two committers of this connector may commit to one table at the same time without a
   * batch landing twice: the watermark check is part of the catalog's atomic swap. Then a task
   * losing its partitions while no coordinator answers commits its batches itself.
   */
  default boolean toleratesConcurrentCommitters() {
    return false;
  }

  /**
   * Runs compaction jobs the coordinator handed to this task (jobs from this format's {@link
   * CommitOutcome#compactions}) and returns their result as files for the coordinator to commit
   * ({@link #commitCompactions}); empty files when there was nothing to do.
   */
  default PreparedFiles compact(TableId table, List<CompactionJob> jobs) {
    throw new UnsupportedOperationException("table " + table + " has no maintenance jobs");
  }

  /**
   * Maintenance that {@code table} needs as it is now, whatever came before: a new coordinator
   * (after a crash or a move) has no memory of the jobs its predecessor handed out.
   */
  default List<CompactionJob> pendingCompactions(TableId table) {
    return List.of();
  }

  /**
   * The id of {@code table}'s latest snapshot, read cheaply, for formats with {@link
   * #pendingCompactions}: the coordinator looks for them again in a table that went quiet only when
   * it changed since the last look (a commit the coordinator did not follow: a predecessor frozen
   * mid-round, a compaction result it could not commit). Empty when the format has none, or the
   * table does not exist (yet).
   */
  default OptionalLong latestSnapshotId(TableId table) {
    return OptionalLong.empty();
  }

  /**
   * Keeps {@code table} healthy (snapshot expiry, small-file compaction, orphan cleanup, as {@code
   * settings} say), on the coordinator's maintenance thread, concurrently with commits of the
   * connector and of other writers: a conflict fails only the maintenance, never a commit. Starts
   * no new piece of work after {@code deadlineNanos} ({@link System#nanoTime()}). {@code
   * checkpoints} are the moments a test may stop the pass at. Formats that maintain themselves
   * (Paimon) do nothing.
   */
  default MaintenanceReport maintain(
      TableId table,
      MaintenanceSettings settings,
      long deadlineNanos,
      MaintenanceCheckpoints checkpoints) {
    return MaintenanceReport.NONE;
  }

  /**
   * Whether the rows of {@code table}'s data files deleted by position as of the connector's latest
   * commit to it (a primary-key table's superseded and deleted keys) call for its maintenance now:
   * {@link MaintenanceSettings#compactDeleteRatio} of them, or any in a table smaller than {@link
   * MaintenanceSettings#compactSmallFileBytes} that holds {@link
   * MaintenanceSettings#compactMinInputFiles} files. Called on the commit's thread right after it;
   * must be cheap. Formats whose reads never pay for deleted rows say false.
   */
  default boolean deletesDue(TableId table, MaintenanceSettings settings) {
    return false;
  }

  /** Deletes the files of batches that will never be committed (best effort). */
  void discard(TableId table, List<PreparedFiles> files);

  @Override
  void close();
}
