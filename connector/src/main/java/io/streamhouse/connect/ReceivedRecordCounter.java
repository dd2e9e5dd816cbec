package io.streamhouse.connect;

import java.util.Collection;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;

/** Counts the records a task received and logs the total when it changed. */
final class ReceivedRecordCounter {
  private long total;
  private long reported;

  void add(Collection<SinkRecord> records) {
    total += records.size();
  }

  void reportIfChanged(Logger log) {
    if (total != reported) {
      log.info("Received {} records in total ({} since the last report)", total, total - reported);
      reported = total;
    }
  }
}
