package io.streamhouse.connect.migration;

import io.streamhouse.connect.table.iceberg.IcebergFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.connect.events.DataWritten;
import org.apache.iceberg.connect.events.Event;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes over tables from the Apache Iceberg Kafka Connect sink at any moment (issue 17). That sink
 * commits the source offsets of the files it wrote to the Connect consumer group in the same Kafka
 * transaction as the {@code DataWritten} events that report them, before its coordinator commits
 * them to the table. Files reported but not committed when it stopped exist only as those events on
 * its control topic, and their records will not be read again: this class commits them, exactly
 * once, before this connector's first commit.
 *
 * <p>It decodes what was read of the control topic ({@link ApacheEventDecoder}), keeps the {@code
 * DataWritten} events of the Apache sink's group, and commits them table by table ({@link
 * TableTakeOver}). The control topic is untrusted: an event that cannot be read, names no table,
 * names a table by another UUID, or carries a file that is not one of the table's own is refused
 * whole, counted and logged, and the take-over goes on.
 */
public final class ApacheTakeOver {
  private static final Logger LOG = LoggerFactory.getLogger(ApacheTakeOver.class);

  /** What a take-over did. */
  public record Result(
      int tablesCommitted,
      int filesCommitted,
      long recordsCommitted,
      List<String> commitIds,
      int eventsRejected,
      int tablesMissing) {
    /** Whether every table named by an event was dealt with (missing tables were not). */
    public boolean complete() {
      return tablesMissing == 0;
    }
  }

  private final String connector;
  private final String controlTopic;
  private final String groupId;
  private final TableTakeOver tables;
  private final AtomicLong rejected = new AtomicLong();

  /**
   * @param catalogName the name of {@code format}'s catalog
   * @param controlTopic the Apache sink's {@code iceberg.control.topic}
   * @param groupId its {@code iceberg.connect.group-id} (by default {@code connect-<name>})
   */
  public ApacheTakeOver(
      String catalogName, IcebergFormat format, String controlTopic, String groupId) {
    this.connector = format.connector();
    this.controlTopic = controlTopic;
    this.groupId = groupId;
    this.tables =
        new TableTakeOver(
            format,
            catalogName,
            controlTopic,
            new ApacheOffsets(controlTopic, groupId),
            rejected::addAndGet);
  }

  /** Events refused since this object was made. */
  public long rejectedEvents() {
    return rejected.get();
  }

  /** Commits, per table, the files of {@code log}'s {@code DataWritten} events it lacks. */
  public Result commitPending(ControlLog log) {
    long rejectedBefore = rejected.get();
    Map<TableIdentifier, List<ReportedEvent>> byTable = new LinkedHashMap<>();
    for (ControlLog.Record record : log.records()) {
      Event event;
      try {
        event = ApacheEventDecoder.decode(record.value());
      } catch (ApacheEventDecoder.InvalidEventException e) {
        reject(record, e.getMessage());
        continue;
      }
      if (!groupId.equals(event.groupId()) || !(event.payload() instanceof DataWritten written)) {
        continue; // another connector's event, or not one that reports files
      }
      if (written.tableReference() == null || written.tableReference().identifier() == null) {
        reject(record, "DataWritten without a table");
        continue;
      }
      byTable
          .computeIfAbsent(written.tableReference().identifier(), t -> new ArrayList<>())
          .add(new ReportedEvent(record.partition(), record.offset(), written));
    }
    int committedTables = 0;
    int files = 0;
    long records = 0;
    int missing = 0;
    List<String> commitIds = new ArrayList<>();
    for (Map.Entry<TableIdentifier, List<ReportedEvent>> entry : byTable.entrySet()) {
      Optional<TableTakeOver.Committed> committed;
      try {
        committed = tables.commit(entry.getKey(), entry.getValue(), log.end());
      } catch (NoSuchTableException e) {
        LOG.warn(
            "The Apache sink reported files for table {}, which is not in the catalog;"
                + " not taken over",
            entry.getKey());
        missing++;
        continue;
      }
      if (committed.isPresent()) {
        committedTables++;
        files += committed.get().files();
        records += committed.get().records();
        commitIds.addAll(committed.get().commitIds());
      }
    }
    return new Result(
        committedTables,
        files,
        records,
        commitIds,
        (int) (rejected.get() - rejectedBefore),
        missing);
  }

  private void reject(ControlLog.Record record, String why) {
    rejected.incrementAndGet();
    LOG.warn(
        "Refused event at {}-{}@{} of the Apache sink's control topic: {}",
        controlTopic,
        record.partition(),
        record.offset(),
        why);
  }
}
