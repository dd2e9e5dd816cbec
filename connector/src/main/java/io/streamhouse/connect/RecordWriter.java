package io.streamhouse.connect;

import io.streamhouse.connect.commit.task.Participant;
import io.streamhouse.connect.errors.BadRecordHandler;
import io.streamhouse.connect.errors.DeadLetterStage;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.monitor.TaskMetrics;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.routing.TableRouter;
import java.util.List;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Writes one record to every table its routes name, through the participant; a record that no route
 * takes or that does not fit a table is a bad record (counted, reported, dead-lettered or skipped,
 * or the task fails with errors.tolerance=none). With transaction-consistent CDC it tells the
 * {@link TransactionGate} which table took the record first. Only the task's thread calls it.
 */
final class RecordWriter {
  private final Participant participant;
  private final TableRouter router;
  private final BadRecordHandler badRecords;
  private final DeadLetters deadLetters; // null: no dead-letter table
  private final TaskMetrics metrics;
  private final TransactionGate transactions; // null: not transaction-consistent

  RecordWriter(
      Participant participant,
      TableRouter router,
      BadRecordHandler badRecords,
      DeadLetters deadLetters,
      TaskMetrics metrics,
      TransactionGate transactions) {
    this.participant = participant;
    this.router = router;
    this.badRecords = badRecords;
    this.deadLetters = deadLetters;
    this.metrics = metrics;
    this.transactions = transactions;
  }

  /** Whether every table {@code record} goes to holds it already (none: false). */
  boolean inEveryTable(SinkRecord record, TopicPartition tp) {
    try {
      List<TableRouter.Destination> to = router.route(record);
      OptionalLong position =
          to.isEmpty() ? OptionalLong.empty() : participant.commonPosition(tp, to);
      return position.isPresent() && record.originalKafkaOffset() < position.getAsLong();
    } catch (RecordConversionException e) {
      return false;
    }
  }

  /** Writes {@code record} (of {@code tp}, its original topic-partition) to its tables. */
  void write(SinkRecord record, TopicPartition tp) {
    TableId first = null; // the table a transaction counts the record in
    try {
      for (TableRouter.Destination to : router.route(record)) {
        try {
          if (participant.write(record, tp, to)) {
            metrics.written();
            first = first == null ? to.table() : first;
          }
        } catch (RecordConversionException e) {
          badRecord(record, tp, to, DeadLetterStage.ofWrite(e), e);
          participant.skipped(record, tp, to);
          first = first == null && deadLetters != null ? deadLetters.table() : first;
        }
      }
    } catch (RecordConversionException e) {
      badRecord(record, tp, null, DeadLetterStage.ROUTE, e);
      first = deadLetters != null ? deadLetters.table() : null;
    }
    if (transactions != null) {
      transactions.written(record, tp, first);
    }
  }

  /**
   * Counts a bad record and reports, writes to the dead-letter table or skips it; fails the task
   * with errors.tolerance=none. {@code to}: the destination it failed for, null if none.
   */
  void badRecord(
      SinkRecord record,
      TopicPartition tp,
      TableRouter.Destination to,
      DeadLetterStage stage,
      RecordConversionException e) {
    metrics.deadLettered();
    BadRecordHandler.Outcome outcome =
        badRecords.handle(
            record, to == null ? "(no table)" : to.table().toString(), e, deadLetters != null);
    if (outcome == BadRecordHandler.Outcome.SKIPPED) {
      metrics.skipped();
    }
    if (deadLetters != null) {
      deadLetters.write(record, tp, to, stage, e);
    }
  }
}
