package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.IcebergTables;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;

/** How many records a sink has made durable, the end condition of a drain. */
final class DurableRecords {
  private DurableRecords() {}

  /** The sum of a sink's committed consumer offsets over its partitions; 0 while there are none. */
  static long committed(Admin admin, String connector) {
    try {
      return admin
          .listConsumerGroupOffsets("connect-" + connector)
          .partitionsToOffsetAndMetadata()
          .get()
          .values()
          .stream()
          .mapToLong(OffsetAndMetadata::offset)
          .sum();
    } catch (Exception e) {
      return 0;
    }
  }

  /** The sum of our connector's watermarks in the table's current snapshot. */
  static long watermarkSum(HadoopTableProbe table, String connector) {
    return IcebergTables.watermarksOf(table.currentSummary(), connector).values().stream()
        .mapToLong(Long::longValue)
        .sum();
  }

  /** The records of the table's current snapshot (the Apache sink writes no watermarks). */
  static long totalRecords(HadoopTableProbe table) {
    return Long.parseLong(table.currentSummary().getOrDefault("total-records", "0"));
  }
}
