package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.table.CheckedBatches;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;

/**
 * Whether the commit messages a task sends are plain writes into the table: a partition of the
 * table's arity, a bucket the table has, new files only (or, for the results of compaction jobs, a
 * compaction increment only), bare file names in the bucket's directory (no external path, nothing
 * to climb out with), the file format the table writes at the file's level and a schema the table
 * has had. It reads the files of a commit's batches for {@link CheckedBatches}.
 */
final class PaimonFileCheck implements CheckedBatches.FileReader<PaimonFileCheck.Entry> {
  /** What the checked messages are. */
  enum Kind {
    /** Written records: new files only. */
    WRITES,
    /** Results of compaction jobs: a compaction increment only. */
    COMPACTION_RESULTS
  }

  /**
   * One thing of a message to check: the message itself ({@code path} null) or one of its files.
   */
  record Entry(CommitMessageImpl message, String path, Optional<String> problem) {}

  private final FileStoreTable table;
  private final Kind kind;
  private final int partitionArity;
  private final int buckets;
  private final String format;
  private final Map<Integer, String> formatPerLevel;
  private final String changelogFormat;

  /** The table's latest schema, read only when a file names a schema newer than the table's. */
  private long latestSchemaId = -1;

  PaimonFileCheck(FileStoreTable table, Kind kind) {
    this.table = table;
    this.kind = kind;
    this.partitionArity = table.partitionKeys().size();
    this.buckets = table.coreOptions().bucket();
    this.format = table.coreOptions().fileFormatString().toLowerCase(Locale.ROOT);
    this.formatPerLevel = table.coreOptions().fileFormatPerLevel();
    this.changelogFormat = table.coreOptions().changelogFileFormat();
  }

  /**
   * The format Paimon writes a file of {@code level} in ({@code file.format.per.level}, {@code
   * changelog-file.format}, else {@code file.format}).
   */
  private String formatOf(int level, boolean changelog) {
    if (changelog && changelogFormat != null) {
      return changelogFormat;
    }
    return formatPerLevel.getOrDefault(level, format);
  }

  /** The table's latest schema: the coordinator's table may predate a task's evolution. */
  private long latestSchemaId() {
    if (latestSchemaId < 0) {
      latestSchemaId =
          table.schemaManager().latest().map(TableSchema::id).orElse(table.schema().id());
    }
    return latestSchemaId;
  }

  @Override
  public List<Entry> read(OfferedBatch batch)
      throws CommitMessagesCodec.InvalidCommitMessagesException {
    return entries(
        CommitMessagesCodec.decode(batch.files().payloadVersion(), batch.files().payload()));
  }

  @Override
  public String path(Entry entry) {
    return entry.path();
  }

  @Override
  public Optional<String> problem(Entry entry) {
    return entry.problem();
  }

  @Override
  public String describe(OfferedBatch batch) {
    return kind == Kind.COMPACTION_RESULTS
        ? "compaction result " + batch.batchId() + " of task " + batch.taskId()
        : CheckedBatches.FileReader.super.describe(batch);
  }

  /** The messages of checked entries, in order: one entry without a path stands for each. */
  static List<CommitMessage> messagesOf(List<Entry> entries) {
    return entries.stream()
        .filter(e -> e.path() == null)
        .map(e -> (CommitMessage) e.message())
        .toList();
  }

  /**
   * The entries of a task's messages: writes (new files only) or the result of a compaction job
   * (only a compaction increment: the files it merged, which Paimon's commit checks are still live,
   * and the files it wrote, checked here like written ones).
   */
  private List<Entry> entries(List<CommitMessage> messages) {
    boolean compaction = kind == Kind.COMPACTION_RESULTS;
    List<Entry> entries = new ArrayList<>();
    for (CommitMessage m : messages) {
      if (!(m instanceof CommitMessageImpl message)) {
        entries.add(new Entry(null, null, Optional.of("a commit message of an unknown kind")));
        continue;
      }
      Optional<String> problem = messageProblem(message, compaction);
      entries.add(new Entry(message, null, problem));
      if (problem.isPresent()) {
        continue;
      }
      String bucketPath =
          table.store().pathFactory().bucketPath(message.partition(), message.bucket()).toString();
      if (compaction) {
        Set<String> merged = new HashSet<>();
        message.compactIncrement().compactBefore().forEach(f -> merged.add(f.fileName()));
        for (DataFileMeta file : message.compactIncrement().compactAfter()) {
          // A file moved up a level keeps its name: no new file, one the table has (Paimon's commit
          // checks that every merged file is still live), and two results may name it.
          if (!merged.contains(file.fileName())) {
            entries.add(
                new Entry(message, bucketPath + "/" + file.fileName(), fileProblem(file, false)));
          }
        }
        for (DataFileMeta file : message.compactIncrement().changelogFiles()) {
          entries.add(
              new Entry(message, bucketPath + "/" + file.fileName(), fileProblem(file, true)));
        }
        for (IndexFileMeta index : message.compactIncrement().newIndexFiles()) {
          entries.add(new Entry(message, "index/" + index.fileName(), indexProblem(index)));
        }
        continue;
      }
      for (DataFileMeta file : message.newFilesIncrement().newFiles()) {
        entries.add(
            new Entry(message, bucketPath + "/" + file.fileName(), fileProblem(file, false)));
      }
      for (DataFileMeta file : message.newFilesIncrement().changelogFiles()) {
        entries.add(
            new Entry(message, bucketPath + "/" + file.fileName(), fileProblem(file, true)));
      }
      for (IndexFileMeta index : message.newFilesIncrement().newIndexFiles()) {
        entries.add(new Entry(message, "index/" + index.fileName(), indexProblem(index)));
      }
    }
    return entries;
  }

  private static Optional<String> indexProblem(IndexFileMeta index) {
    Optional<String> wrong = nameProblem(index.fileName());
    if (wrong.isEmpty() && index.externalPath() != null) {
      wrong = Optional.of("has an external path " + index.externalPath());
    }
    return wrong;
  }

  private Optional<String> messageProblem(CommitMessageImpl message, boolean compaction) {
    if (message.partition() == null || message.partition().getFieldCount() != partitionArity) {
      return Optional.of(
          "a commit message has a partition of "
              + (message.partition() == null
                  ? "no"
                  : Integer.toString(message.partition().getFieldCount()))
              + " fields; the table has "
              + partitionArity
              + " partition keys");
    }
    int bucket = message.bucket();
    if (buckets > 0 ? bucket < 0 || bucket >= buckets : bucket < 0 && bucket != buckets) {
      return Optional.of(
          "a commit message names bucket " + bucket + "; the table has bucket=" + buckets);
    }
    if (compaction) {
      if (!message.newFilesIncrement().isEmpty()) {
        return Optional.of(
            "a compaction result of bucket " + bucket + " also writes or deletes files");
      }
    } else if (!message.compactIncrement().isEmpty()
        || !message.newFilesIncrement().deletedFiles().isEmpty()
        || !message.newFilesIncrement().deletedIndexFiles().isEmpty()) {
      return Optional.of(
          "a commit message of bucket "
              + bucket
              + " deletes or compacts files; a batch of "
              + "written records only adds files");
    }
    return Optional.empty();
  }

  private Optional<String> fileProblem(DataFileMeta file, boolean changelog) {
    Optional<String> name = nameProblem(file.fileName());
    if (name.isPresent()) {
      return name;
    }
    if (file.externalPath().isPresent()) {
      return Optional.of("has an external path " + file.externalPath().get());
    }
    String expected = formatOf(file.level(), changelog);
    if (!expected.equalsIgnoreCase(file.fileFormat())) {
      return Optional.of(
          "is "
              + file.fileFormat()
              + " but the table writes "
              + expected
              + " at level "
              + file.level());
    }
    if (file.schemaId() < 0
        || (file.schemaId() > table.schema().id() && file.schemaId() > latestSchemaId())) {
      return Optional.of(
          "has schema " + file.schemaId() + "; the table's schemas go up to " + latestSchemaId());
    }
    if (file.rowCount() < 0 || file.fileSize() < 0) {
      return Optional.of("has a negative row count or size");
    }
    return Optional.empty();
  }

  private static Optional<String> nameProblem(String name) {
    if (name == null
        || name.isEmpty()
        || name.startsWith(".")
        || name.indexOf('/') >= 0
        || name.indexOf('\\') >= 0) {
      return Optional.of("is not a bare file name");
    }
    return Optional.empty();
  }
}
