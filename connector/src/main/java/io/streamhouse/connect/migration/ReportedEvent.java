package io.streamhouse.connect.migration;

import io.streamhouse.connect.protocol.OfferedBatch;
import java.util.Map;
import org.apache.iceberg.connect.events.DataWritten;

/**
 * A {@code DataWritten} event of the Apache sink's control topic, decoded, where it was read: the
 * files one Apache worker reported for one table.
 */
record ReportedEvent(int partition, long offset, DataWritten payload) {
  /** Where the event is on {@code controlTopic}: {@code <topic>-<partition>@<offset>}. */
  String position(String controlTopic) {
    return controlTopic + "-" + partition + "@" + offset;
  }

  /** Whether a table whose Apache control offsets are {@code offsets} holds the event already. */
  boolean inTable(Map<Integer, Long> offsets) {
    Long next = offsets.get(partition);
    return next != null && offset < next;
  }

  /**
   * The event as {@link io.streamhouse.connect.table.CheckedBatches} takes a batch: its id is its
   * position; no task, offsets or prepared files ({@link ReportedFileCheck} reads the files).
   */
  OfferedBatch asBatch(String controlTopic) {
    return new OfferedBatch(position(controlTopic), -1, Map.of(), null, -1);
  }
}
