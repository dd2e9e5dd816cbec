package io.streamhouse.connect.migration;

import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.CheckedBatches;
import io.streamhouse.connect.table.CommitLoop;
import io.streamhouse.connect.table.iceberg.CallerThread;
import io.streamhouse.connect.table.iceberg.IcebergFormat;
import io.streamhouse.connect.table.iceberg.OwnSnapshotValidator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntConsumer;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The take-over commit of one table: of the {@code DataWritten} events naming it, those at or after
 * the Apache control offsets of the table's latest snapshot carrying them ({@link ApacheOffsets};
 * the rule of the Apache coordinator itself) are checked once ({@link CheckedBatches} with {@link
 * ReportedFileCheck}) and their files appended in one snapshot that sets those offsets to the end
 * read and {@code streamhouse.<connector>.apache-handover} to the Apache commit ids. The append is
 * validated against the ancestry, so a late Apache commit or a second take-over makes it plan again
 * ({@link CommitLoop#retry}); a restart finds nothing left.
 */
final class TableTakeOver {
  private static final Logger LOG = LoggerFactory.getLogger(TableTakeOver.class);

  /** The files committed, their records, and the Apache commit ids they came from. */
  record Committed(int files, long records, List<String> commitIds) {}

  private final IcebergFormat format;
  private final String catalogName;
  private final String controlTopic;
  private final ApacheOffsets offsets;
  private final IntConsumer refused;

  /**
   * @param refused told how many events the checks refused, before the commit
   */
  TableTakeOver(
      IcebergFormat format,
      String catalogName,
      String controlTopic,
      ApacheOffsets offsets,
      IntConsumer refused) {
    this.format = format;
    this.catalogName = catalogName;
    this.controlTopic = controlTopic;
    this.offsets = offsets;
    this.refused = refused;
  }

  /**
   * Commits the files of {@code events} (all naming {@code identifier}) that the table lacks;
   * {@code end} is where reading the control topic ended, per partition.
   *
   * @throws org.apache.iceberg.exceptions.NoSuchTableException when the table does not exist
   */
  Optional<Committed> commit(
      TableIdentifier identifier, List<ReportedEvent> events, Map<Integer, Long> end) {
    Table table = format.catalog().loadTable(identifier);
    TableId id =
        new TableId(catalogName, List.of(identifier.namespace().levels()), identifier.name());
    Map<Integer, Long> inTable = offsets.of(offsets.latest(table));
    Map<String, ReportedEvent> pending = new LinkedHashMap<>();
    for (ReportedEvent event : events) {
      if (!event.inTable(inTable)) {
        pending.put(event.position(controlTopic), event);
      }
    }
    if (pending.isEmpty()) {
      return Optional.empty();
    }
    List<OfferedBatch> batches =
        pending.values().stream().map(e -> e.asBatch(controlTopic)).toList();
    CheckedBatches<DataFile> checked =
        CheckedBatches.check(
            format.connector(), id, batches, new ReportedFileCheck(table, pending));
    refused.accept(checked.refused().size());
    List<OfferedBatch> accepted = checked.accepted(batches);
    return CommitLoop.retry(
        format.connector(),
        id,
        "the take-over from the Apache sink is tried again",
        attempt -> {
          Table current = attempt == 1 ? table : format.catalog().loadTable(identifier);
          return append(current, identifier, accepted, pending, checked, end);
        });
  }

  /** One attempt: appends what {@code table} lacks of the accepted events, if anything. */
  private Optional<Committed> append(
      Table table,
      TableIdentifier identifier,
      List<OfferedBatch> accepted,
      Map<String, ReportedEvent> pending,
      CheckedBatches<DataFile> checked,
      Map<Integer, Long> end)
      throws CommitLoop.ConcurrentCommitException {
    Snapshot base = offsets.latest(table);
    Map<Integer, Long> inTable = offsets.of(base);
    List<DataFile> files = new ArrayList<>();
    Set<String> commitIds = new LinkedHashSet<>();
    for (OfferedBatch batch : accepted) {
      ReportedEvent event = pending.get(batch.batchId());
      if (event.inTable(inTable)) {
        continue; // committed since the first attempt
      }
      checked.files(batch.batchId()).stream().filter(f -> f.recordCount() > 0).forEach(files::add);
      commitIds.add(String.valueOf(event.payload().commitId()));
    }
    if (files.isEmpty()) {
      return Optional.empty();
    }
    Map<Integer, Long> merged = new TreeMap<>(inTable);
    end.forEach((p, o) -> merged.merge(p, o, Math::max));
    AppendFiles append = CallerThread.manifests(table.newAppend());
    long records = 0;
    for (DataFile file : files) {
      append.appendFile(file);
      records += file.recordCount();
    }
    append.set(offsets.key(), ApacheOffsets.encode(merged));
    append.set(format.keys().apacheTakeOver(), String.join(",", commitIds));
    append.validateWith(
        new OwnSnapshotValidator(offsets.key(), base == null ? null : base.snapshotId(), false));
    try {
      append.commit();
    } catch (ValidationException | CommitFailedException raced) {
      throw new CommitLoop.ConcurrentCommitException(raced.getMessage(), raced);
    }
    LOG.info(
        "Took over table {} from the Apache sink: committed {} files ({} records)"
            + " it had reported but not committed (Apache commit ids {}), control offsets now {}",
        identifier,
        files.size(),
        records,
        commitIds,
        merged);
    return Optional.of(new Committed(files.size(), records, List.copyOf(commitIds)));
  }
}
