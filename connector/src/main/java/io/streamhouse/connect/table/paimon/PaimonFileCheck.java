package io.streamhouse.connect.table.paimon;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;

/**
 * Whether the commit messages a task offers are plain writes into the table: a partition of the
 * table's arity, a bucket the table has, new files only (tasks write, the coordinator compacts),
 * bare file names in the bucket's directory (no external path, nothing to climb out with), the
 * table's file format and a schema the table has had.
 */
final class PaimonFileCheck {
  /** One thing of a message to check: the message itself ({@code path} null) or one of its files. */
  record Entry(CommitMessageImpl message, String path, Optional<String> problem) {}

  private final FileStoreTable table;
  private final int partitionArity;
  private final int buckets;
  private final String format;
  private final long schemaId;

  PaimonFileCheck(FileStoreTable table) {
    this.table = table;
    this.partitionArity = table.partitionKeys().size();
    this.buckets = table.coreOptions().bucket();
    this.format = table.coreOptions().fileFormatString().toLowerCase(Locale.ROOT);
    this.schemaId = table.schemaManager().latest().map(org.apache.paimon.schema.TableSchema::id)
        .orElse(table.schema().id()); // the coordinator's table may predate a task's evolution
  }

  List<Entry> entries(List<CommitMessage> messages) {
    List<Entry> entries = new ArrayList<>();
    for (CommitMessage m : messages) {
      if (!(m instanceof CommitMessageImpl message)) {
        entries.add(new Entry(null, null, Optional.of("a commit message of an unknown kind")));
        continue;
      }
      Optional<String> problem = messageProblem(message);
      entries.add(new Entry(message, null, problem));
      if (problem.isPresent()) {
        continue;
      }
      String bucketPath = table.store().pathFactory().bucketPath(message.partition(), message.bucket()).toString();
      for (DataFileMeta file : message.newFilesIncrement().newFiles()) {
        entries.add(new Entry(message, bucketPath + "/" + file.fileName(), fileProblem(file)));
      }
      for (DataFileMeta file : message.newFilesIncrement().changelogFiles()) {
        entries.add(new Entry(message, bucketPath + "/" + file.fileName(), fileProblem(file)));
      }
      for (IndexFileMeta index : message.newFilesIncrement().newIndexFiles()) {
        Optional<String> wrong = nameProblem(index.fileName());
        if (wrong.isEmpty() && index.externalPath() != null) {
          wrong = Optional.of("has an external path " + index.externalPath());
        }
        entries.add(new Entry(message, "index/" + index.fileName(), wrong));
      }
    }
    return entries;
  }

  private Optional<String> messageProblem(CommitMessageImpl message) {
    if (message.partition() == null || message.partition().getFieldCount() != partitionArity) {
      return Optional.of("a commit message has a partition of "
          + (message.partition() == null ? "no" : Integer.toString(message.partition().getFieldCount()))
          + " fields; the table has " + partitionArity + " partition keys");
    }
    int bucket = message.bucket();
    if (buckets > 0 ? bucket < 0 || bucket >= buckets : bucket < 0 && bucket != buckets) {
      return Optional.of("a commit message names bucket " + bucket + "; the table has bucket=" + buckets);
    }
    if (!message.compactIncrement().isEmpty() || !message.newFilesIncrement().deletedFiles().isEmpty()
        || !message.newFilesIncrement().deletedIndexFiles().isEmpty()) {
      return Optional.of("a commit message of bucket " + bucket + " deletes or compacts files; tasks only add files");
    }
    return Optional.empty();
  }

  private Optional<String> fileProblem(DataFileMeta file) {
    Optional<String> name = nameProblem(file.fileName());
    if (name.isPresent()) {
      return name;
    }
    if (file.externalPath().isPresent()) {
      return Optional.of("has an external path " + file.externalPath().get());
    }
    if (!format.equalsIgnoreCase(file.fileFormat())) {
      return Optional.of("is " + file.fileFormat() + " but the table writes " + format);
    }
    if (file.schemaId() < 0 || file.schemaId() > schemaId) {
      return Optional.of("has schema " + file.schemaId() + "; the table's schemas go up to " + schemaId);
    }
    if (file.rowCount() < 0 || file.fileSize() < 0) {
      return Optional.of("has a negative row count or size");
    }
    return Optional.empty();
  }

  private static Optional<String> nameProblem(String name) {
    if (name == null || name.isEmpty() || name.startsWith(".") || name.indexOf('/') >= 0 || name.indexOf('\\') >= 0) {
      return Optional.of("is not a bare file name");
    }
    return Optional.empty();
  }
}
