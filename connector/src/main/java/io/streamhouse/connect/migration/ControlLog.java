package io.streamhouse.connect.migration;

import java.util.List;
import java.util.Map;

/**
 * What the take-over read of the Apache sink's control topic: its records from some offsets on, and
 * per partition the offset after the last record read (every record before it was seen).
 */
public record ControlLog(List<ControlLog.Record> records, Map<Integer, Long> end) {
  /** One record of the control topic: its partition, its offset and its value (an event). */
  public record Record(int partition, long offset, byte[] value) {}

  public ControlLog {
    records = List.copyOf(records);
    end = Map.copyOf(end);
  }
}
