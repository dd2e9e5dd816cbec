package io.streamhouse.connect.migration;

import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.table.CheckedBatches;
import io.streamhouse.connect.table.iceberg.IcebergFileCheck;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.connect.events.DataWritten;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.Types;

/**
 * The checks of what a {@code DataWritten} event reports, as {@link CheckedBatches} runs them on a
 * batch (the event is one, see {@link ReportedEvent#asBatch}): the event names the table by its own
 * UUID and reports no delete files; each file is a data file of the table's own ({@link
 * IcebergFileCheck}: under its data location, in its format), of a partition spec the table has,
 * with a partition that fits it, and unless empty, present with its size. {@link CheckedBatches}
 * adds that no file is reported twice: a later event reporting a file again is refused.
 */
final class ReportedFileCheck implements CheckedBatches.FileReader<DataFile> {
  private final Table table;
  private final IcebergFileCheck check;
  private final Map<String, ReportedEvent> events;

  /**
   * @param events the events to check, by their id as batches
   */
  ReportedFileCheck(Table table, Map<String, ReportedEvent> events) {
    this.table = table;
    this.check = new IcebergFileCheck(table);
    this.events = events;
  }

  @Override
  public List<DataFile> read(OfferedBatch batch) throws ApacheEventDecoder.InvalidEventException {
    DataWritten written = events.get(batch.batchId()).payload();
    UUID uuid = written.tableReference().uuid();
    if (uuid != null && !uuid.equals(table.uuid())) {
      throw new ApacheEventDecoder.InvalidEventException(
          "the event names table UUID " + uuid + ", the table is " + table.uuid());
    }
    if (written.deleteFiles() != null && !written.deleteFiles().isEmpty()) {
      throw new ApacheEventDecoder.InvalidEventException(
          "delete files are not supported (append tables only)");
    }
    List<DataFile> files = written.dataFiles() == null ? List.of() : written.dataFiles();
    for (DataFile file : files) {
      if (file == null) {
        throw new ApacheEventDecoder.InvalidEventException("a null data file");
      }
    }
    return files;
  }

  @Override
  public String path(DataFile file) {
    return IcebergFileCheck.normalized(file.location());
  }

  @Override
  public Optional<String> problem(DataFile file) {
    if (file.content() != FileContent.DATA) {
      return Optional.of("is not a data file");
    }
    Optional<String> notOwn = check.problem(file);
    if (notOwn.isPresent()) {
      return notOwn;
    }
    PartitionSpec spec = table.specs().get(file.specId());
    if (spec == null) {
      return Optional.of("has partition spec " + file.specId() + ", unknown to the table");
    }
    Optional<String> partition = partitionProblem(spec, file.partition());
    if (partition.isPresent() || file.recordCount() == 0) {
      return partition;
    }
    try {
      InputFile input = table.io().newInputFile(file.location());
      if (!input.exists()) {
        return Optional.of("does not exist");
      }
      if (input.getLength() != file.fileSizeInBytes()) {
        return Optional.of("has " + input.getLength() + " bytes, not " + file.fileSizeInBytes());
      }
    } catch (RuntimeException e) {
      return Optional.of("cannot be checked: " + e);
    }
    return Optional.empty();
  }

  /** A file reported twice goes in once, with the first event reporting it. */
  @Override
  public boolean firstNamingKeepsFile() {
    return true;
  }

  @Override
  public String describe(OfferedBatch batch) {
    return "event at " + batch.batchId() + " of the Apache sink's control topic";
  }

  private static Optional<String> partitionProblem(PartitionSpec spec, StructLike partition) {
    List<Types.NestedField> fields = spec.partitionType().fields();
    int size = partition == null ? 0 : partition.size();
    if (size != fields.size()) {
      return Optional.of(
          "has a partition of "
              + size
              + " values, spec "
              + spec.specId()
              + " has "
              + fields.size());
    }
    for (int i = 0; i < size; i++) {
      Class<?> type = fields.get(i).type().typeId().javaClass();
      Object value = partition.get(i, Object.class);
      if (value != null && !type.isInstance(value)) {
        return Optional.of("has partition value " + i + " not a " + type.getSimpleName());
      }
    }
    return Optional.empty();
  }
}
