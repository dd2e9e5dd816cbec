package io.streamhouse.connect.errors;

import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A record that cannot be written: with {@code errors.tolerance=all} it goes to the dead-letter
 * queue (Connect's {@link ErrantRecordReporter}) and the task goes on; otherwise the task fails.
 * Either way the message names connector, task, topic, partition, offset, table and field.
 */
public final class BadRecordHandler {
  private static final Logger LOG = LoggerFactory.getLogger(BadRecordHandler.class);
  private final String connector;
  private final int taskId;
  private final boolean tolerate;
  private final ErrantRecordReporter reporter;

  public BadRecordHandler(String connector, int taskId, boolean tolerate, SinkTaskContext context) {
    this.connector = connector;
    this.taskId = taskId;
    this.tolerate = tolerate;
    ErrantRecordReporter r = null;
    try {
      r = context == null ? null : context.errantRecordReporter(); // null: outside a worker
    } catch (NoSuchMethodError | NoClassDefFoundError oldWorker) {
      LOG.warn("This worker has no errant record reporter; bad records fail the task");
    }
    this.reporter = r;
  }

  public void handle(SinkRecord record, String table, RecordConversionException cause) {
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
    if (tolerate && reporter != null) {
      reporter.report(record, new DataException(message, cause));
      LOG.debug("{} (sent to the dead-letter queue)", message);
      return;
    }
    throw new ConnectException(message, cause);
  }
}
