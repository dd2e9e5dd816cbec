package io.streamhouse.connect;

import io.streamhouse.connect.commit.task.Participant;
import io.streamhouse.connect.errors.DeadLetterRows;
import io.streamhouse.connect.errors.DeadLetterStage;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.monitor.DeadLetterMetrics;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.routing.TableRouter.Destination;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The dead-letter table ({@code errors.deadletter.table}) as one more destination of the task's
 * writers: a bad record's row goes through the participant like any record, so it is committed in
 * the same rounds under the same watermarks, and a replay skips what the table has
 * (docs/dead-letter-table.md). A row that cannot be written fails the task: nothing is dropped.
 */
final class DeadLetters {
  private final String connector;
  private final int taskId;
  private final Participant participant;
  private final Destination destination;
  private final DeadLetterRows rows;
  private final DeadLetterMetrics metrics;

  DeadLetters(
      String connector,
      int taskId,
      Participant participant,
      Destination destination,
      DeadLetterRows rows,
      DeadLetterMetrics metrics) {
    this.connector = connector;
    this.taskId = taskId;
    this.participant = participant;
    this.destination = destination;
    this.rows = rows;
    this.metrics = metrics;
    participant.commitFirst(destination.table());
  }

  TableId table() {
    return destination.table();
  }

  /**
   * Writes the row of {@code bad} (of {@code tp}, its original topic-partition), which failed at
   * {@code stage} on its way to {@code meant} (null: no route took it), unless the table has it.
   *
   * @throws ConnectException if the row cannot be written: the task fails
   */
  void write(
      SinkRecord bad,
      TopicPartition tp,
      Destination meant,
      DeadLetterStage stage,
      RecordConversionException error) {
    String table = meant == null ? null : meant.table().toString();
    SinkRecord row =
        rows.row(bad, meant == null ? null : meant.route().name(), table, stage, error);
    boolean written;
    try {
      written = participant.write(row, tp, destination);
    } catch (RecordConversionException | RuntimeException e) {
      throw new ConnectException(
          "Connector "
              + connector
              + " task "
              + taskId
              + ": cannot write the record at topic "
              + tp.topic()
              + " partition "
              + tp.partition()
              + " offset "
              + bad.originalKafkaOffset()
              + " to the dead-letter table "
              + destination.table()
              + " (it failed at stage "
              + stage.columnValue()
              + " for table "
              + (table == null ? "(none)" : table)
              + ", field "
              + error.field()
              + ": "
              + error.getMessage()
              + "): "
              + e,
          e);
    }
    if (written) {
      metrics.written(table, stage.columnValue());
    }
  }
}
