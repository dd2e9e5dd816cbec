package io.streamhouse.connect.table.iceberg;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.connect.events.DataWritten;
import org.apache.iceberg.connect.events.Event;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.JsonUtil;
import org.apache.iceberg.util.SnapshotUtil;
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
 * <p>Which events a table still lacks is what the Apache coordinator itself would decide: those at
 * or after the control-topic offsets of the latest snapshot in the table's ancestry carrying {@code
 * kafka.connect.offsets.<control-topic>.<group-id>}. The snapshot that adds their files sets that
 * key to the end of what was read, so a second hand-over (a restart) finds nothing left; the commit
 * is validated against the ancestry, so that a late commit of the Apache coordinator itself (or a
 * second hand-over) makes it fail and be planned again. The control topic is untrusted: an event
 * that cannot be read ({@link ApacheEventDecoder}), names a table by another UUID, or carries a
 * file that is not one of the table's own data files (outside its data location, another format, an
 * unknown spec, a partition that does not fit, missing or of another size) is refused whole,
 * counted and logged, and the hand-over goes on.
 */
public final class ApacheHandover {
  private static final Logger LOG = LoggerFactory.getLogger(ApacheHandover.class);

  private static final int MAX_ATTEMPTS = 10;

  /** One record of the Apache sink's control topic. */
  public record ControlRecord(int partition, long offset, byte[] value) {}

  /**
   * What was read of the control topic: its records from some offsets on, and per partition the
   * offset after the last record read (every record before it was seen).
   */
  public record ControlLog(List<ControlRecord> records, Map<Integer, Long> end) {
    public ControlLog {
      records = List.copyOf(records);
      end = Map.copyOf(end);
    }
  }

  /** What a hand-over did. */
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

  private final IcebergFormat format;
  private final String controlTopic;
  private final String groupId;
  private final String offsetsKey;
  private final AtomicLong rejected = new AtomicLong();

  /**
   * @param controlTopic the Apache sink's {@code iceberg.control.topic}
   * @param groupId its {@code iceberg.connect.group-id} (by default {@code connect-<name>})
   */
  public ApacheHandover(IcebergFormat format, String controlTopic, String groupId) {
    this.format = format;
    this.controlTopic = controlTopic;
    this.groupId = groupId;
    this.offsetsKey = "kafka.connect.offsets." + controlTopic + "." + groupId;
  }

  /** Events refused since this object was made. */
  public long rejectedEvents() {
    return rejected.get();
  }

  private record Pending(int partition, long offset, DataWritten payload) {}

  /** Commits, per table, the files of {@code log}'s {@code DataWritten} events it lacks. */
  public Result commitPending(ControlLog log) {
    Map<TableIdentifier, List<Pending>> byTable = new LinkedHashMap<>();
    int rejectedBefore = (int) rejected.get();
    for (ControlRecord record : log.records()) {
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
          .add(new Pending(record.partition(), record.offset(), written));
    }
    int tables = 0;
    int files = 0;
    long records = 0;
    int missing = 0;
    List<String> commitIds = new ArrayList<>();
    for (Map.Entry<TableIdentifier, List<Pending>> entry : byTable.entrySet()) {
      Optional<Committed> committed;
      try {
        committed = commitTable(entry.getKey(), entry.getValue(), log.end());
      } catch (NoSuchTableException e) {
        LOG.warn(
            "Connector {}: the Apache sink reported files for table {}, which is not in the catalog;"
                + " not taken over",
            format.connector(),
            entry.getKey());
        missing++;
        continue;
      }
      if (committed.isPresent()) {
        tables++;
        files += committed.get().files();
        records += committed.get().records();
        commitIds.addAll(committed.get().commitIds());
      }
    }
    return new Result(
        tables, files, records, commitIds, (int) rejected.get() - rejectedBefore, missing);
  }

  private void reject(ControlRecord record, String why) {
    rejected.incrementAndGet();
    LOG.warn(
        "Connector {}: refused event at {}-{}@{} of the Apache sink's control topic: {}",
        format.connector(),
        controlTopic,
        record.partition(),
        record.offset(),
        why);
  }

  private record Committed(int files, long records, List<String> commitIds) {}

  private Optional<Committed> commitTable(
      TableIdentifier identifier, List<Pending> events, Map<Integer, Long> end) {
    for (int attempt = 1; ; attempt++) {
      Table table = format.catalog().loadTable(identifier);
      Snapshot base = latestWithOffsets(table);
      Map<Integer, Long> committedOffsets = base == null ? Map.of() : offsets(base);
      IcebergFileCheck check = new IcebergFileCheck(table);
      Map<String, DataFile> files = new LinkedHashMap<>();
      Set<String> commitIds = new LinkedHashSet<>();
      for (Pending pending : events) {
        Long from = committedOffsets.get(pending.partition());
        if (from != null && pending.offset() < from) {
          continue; // in the table already
        }
        ControlRecord at = new ControlRecord(pending.partition(), pending.offset(), null);
        Optional<String> problem = problem(table, check, pending.payload(), files.keySet());
        if (problem.isPresent()) {
          if (attempt == 1) {
            reject(at, "table " + identifier + ": " + problem.get());
          }
          continue;
        }
        for (DataFile file : pending.payload().dataFiles()) {
          if (file.recordCount() > 0) {
            files.put(IcebergFileCheck.normalized(file.location()), file);
          }
        }
        commitIds.add(String.valueOf(pending.payload().commitId()));
      }
      if (files.isEmpty()) {
        return Optional.empty();
      }
      Map<Integer, Long> merged = new TreeMap<>(committedOffsets);
      end.forEach((p, o) -> merged.merge(p, o, Math::max));
      AppendFiles append = table.newAppend();
      long records = 0;
      for (DataFile file : files.values()) {
        append.appendFile(file);
        records += file.recordCount();
      }
      append.set(offsetsKey, json(merged));
      append.set(format.keys().apacheHandOver(), String.join(",", commitIds));
      append.validateWith(
          new OwnSnapshotValidator(offsetsKey, base == null ? null : base.snapshotId(), false));
      try {
        append.commit();
      } catch (ValidationException | CommitFailedException raced) {
        if (attempt >= MAX_ATTEMPTS) {
          throw raced;
        }
        LOG.info(
            "Connector {}: table {} changed during the hand-over from the Apache sink; again: {}",
            format.connector(),
            identifier,
            raced.getMessage());
        continue;
      }
      LOG.info(
          "Connector {}: took over table {} from the Apache sink: committed {} files ({} records)"
              + " it had reported but not committed (Apache commit ids {}), control offsets now {}",
          format.connector(),
          identifier,
          files.size(),
          records,
          commitIds,
          merged);
      return Optional.of(new Committed(files.size(), records, List.copyOf(commitIds)));
    }
  }

  /** Why the files of {@code written} cannot go into {@code table}, if they cannot. */
  private static Optional<String> problem(
      Table table, IcebergFileCheck check, DataWritten written, Set<String> taken) {
    UUID uuid = written.tableReference().uuid();
    if (uuid != null && !uuid.equals(table.uuid())) {
      return Optional.of("the event names table UUID " + uuid + ", the table is " + table.uuid());
    }
    if (written.deleteFiles() != null && !written.deleteFiles().isEmpty()) {
      return Optional.of("delete files are not supported (append tables only)");
    }
    if (written.dataFiles() == null) {
      return Optional.empty();
    }
    for (DataFile file : written.dataFiles()) {
      if (file == null) {
        return Optional.of("a null data file");
      }
      String name = file.location();
      if (file.content() != FileContent.DATA) {
        return Optional.of(name + " is not a data file");
      }
      Optional<String> p = check.problem(file);
      if (p.isPresent()) {
        return Optional.of(name + " " + p.get());
      }
      if (taken.contains(IcebergFileCheck.normalized(name))) {
        return Optional.of(name + " is reported twice");
      }
      PartitionSpec spec = table.specs().get(file.specId());
      if (spec == null) {
        return Optional.of(
            name + " has partition spec " + file.specId() + ", unknown to the table");
      }
      Optional<String> partition = partitionProblem(spec, file.partition());
      if (partition.isPresent()) {
        return Optional.of(name + ": " + partition.get());
      }
      if (file.recordCount() > 0) {
        try {
          InputFile input = table.io().newInputFile(name);
          if (!input.exists()) {
            return Optional.of(name + " does not exist");
          }
          if (input.getLength() != file.fileSizeInBytes()) {
            return Optional.of(
                name + " has " + input.getLength() + " bytes, not " + file.fileSizeInBytes());
          }
        } catch (RuntimeException e) {
          return Optional.of(name + " cannot be checked: " + e);
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<String> partitionProblem(PartitionSpec spec, StructLike partition) {
    List<Types.NestedField> fields = spec.partitionType().fields();
    int size = partition == null ? 0 : partition.size();
    if (size != fields.size()) {
      return Optional.of(
          "partition of " + size + " values, spec " + spec.specId() + " has " + fields.size());
    }
    for (int i = 0; i < size; i++) {
      Class<?> type = fields.get(i).type().typeId().javaClass();
      Object value = partition.get(i, Object.class);
      if (value != null && !type.isInstance(value)) {
        return Optional.of("partition value " + i + " is not a " + type.getSimpleName());
      }
    }
    return Optional.empty();
  }

  /** The latest snapshot of the main branch's ancestry with the Apache sink's offsets key. */
  private Snapshot latestWithOffsets(Table table) {
    if (table.currentSnapshot() == null) {
      return null;
    }
    for (Snapshot s : SnapshotUtil.currentAncestors(table)) {
      if (s.summary() != null && s.summary().containsKey(offsetsKey)) {
        return s;
      }
    }
    return null;
  }

  private Map<Integer, Long> offsets(Snapshot snapshot) {
    String value = snapshot.summary().get(offsetsKey);
    Map<Integer, Long> offsets = new TreeMap<>();
    try {
      JsonNode node = JsonUtil.mapper().readTree(value);
      if (!node.isObject()) {
        throw new IllegalArgumentException("not a JSON object");
      }
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        offsets.put(Integer.parseInt(e.getKey()), e.getValue().asLong());
      }
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "snapshot " + snapshot.snapshotId() + " has an unreadable " + offsetsKey + ": " + value,
          e);
    }
    return offsets;
  }

  private static String json(Map<Integer, Long> offsets) {
    StringBuilder s = new StringBuilder("{");
    offsets.forEach(
        (p, o) ->
            s.append(s.length() > 1 ? "," : "").append('"').append(p).append("\":").append(o));
    return s.append('}').toString();
  }
}
