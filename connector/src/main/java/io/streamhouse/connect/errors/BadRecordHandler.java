package io.streamhouse.connect.errors;

import java.util.function.LongSupplier;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A record that cannot be written. With {@code errors.tolerance=all} the task goes on: the record
 * goes to Connect's {@link ErrantRecordReporter} (the dead-letter topic, or Connect's error log)
 * when the worker gives one, else it is skipped, counted by the caller and logged (rate-limited,
 * {@link SkippedRecordLog}). With {@code errors.tolerance=none} the task fails. Every message names
 * connector, task, topic, partition, offset, table and field.
 */
public final class BadRecordHandler {
  private static final Logger LOG = LoggerFactory.getLogger(BadRecordHandler.class);

  /** At most one WARN line per this many milliseconds about skipped records. */
  public static final long SKIPPED_LOG_INTERVAL_MS = 30_000;

  /** What became of a bad record the task goes on after. */
  public enum Outcome {
    /** Given to Connect's errant record reporter. */
    REPORTED,
    /** No dead-letter destination: skipped, logged (rate-limited). */
    SKIPPED,
    /** No destination of Connect's; the caller writes it to the dead-letter table. */
    TO_TABLE
  }

  private final String connector;
  private final int taskId;
  private final boolean tolerate;
  private final ErrantRecordReporter reporter;
  private final SkippedRecordLog skippedLog;

  public BadRecordHandler(String connector, int taskId, boolean tolerate, SinkTaskContext context) {
    this(connector, taskId, tolerate, reporterOf(context), System::currentTimeMillis);
  }

  /**
   * {@code reporter}: Connect's, or null when the worker gives none (no dead-letter topic and no
   * {@code errors.log.enable}); {@code millis}: the clock of the rate limit.
   */
  public BadRecordHandler(
      String connector,
      int taskId,
      boolean tolerate,
      ErrantRecordReporter reporter,
      LongSupplier millis) {
    this.connector = connector;
    this.taskId = taskId;
    this.tolerate = tolerate;
    this.reporter = reporter;
    this.skippedLog = new SkippedRecordLog(LOG, SKIPPED_LOG_INTERVAL_MS, millis);
  }

  private static ErrantRecordReporter reporterOf(SinkTaskContext context) {
    try {
      return context == null ? null : context.errantRecordReporter(); // null: no DLQ, no error log
    } catch (NoSuchMethodError | NoClassDefFoundError oldWorker) {
      LOG.warn(
          "This worker has no errant record reporter; bad records are skipped or fail the task");
      return null;
    }
  }

  /**
   * Reports or skips {@code record}, which could not be written to {@code table}.
   *
   * @throws ConnectException with {@code errors.tolerance=none}: the task fails
   */
  public Outcome handle(SinkRecord record, String table, RecordConversionException cause) {
    return handle(record, table, cause, false);
  }

  /**
   * Reports {@code record} to Connect's reporter if there is one, and when {@code deadLetterTable}
   * (the caller writes it there too) does not log it as skipped.
   *
   * @throws ConnectException with {@code errors.tolerance=none}: the task fails
   */
  public Outcome handle(
      SinkRecord record, String table, RecordConversionException cause, boolean deadLetterTable) {
    String message =
        "Connector "
            + connector
            + " task "
            + taskId
            + ": cannot write the record at topic "
            + record.topic()
            + " partition "
            + record.kafkaPartition()
            + " offset "
            + record.kafkaOffset()
            + " to table "
            + table
            + ": field "
            + cause.field()
            + ": "
            + cause.getMessage();
    if (!tolerate) {
      throw new ConnectException(message, cause);
    }
    if (reporter != null) {
      reporter.report(record, new DataException(message, cause));
      LOG.debug("{} (sent to the dead-letter queue)", message);
      return Outcome.REPORTED;
    }
    if (deadLetterTable) {
      LOG.debug("{} (written to the dead-letter table)", message);
      return Outcome.TO_TABLE;
    }
    skippedLog.skipped(message);
    return Outcome.SKIPPED;
  }
}
