package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.operation.FileStoreWrite;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableWriteImpl;

/**
 * Where a task's bucket writers start numbering rows after another task's batch that is not
 * committed yet (docs/paimon.md, "Reading on after a hand-in"). A key's rows are ordered by their
 * sequence numbers; a new bucket writer numbers from the committed files only, below the rows of a
 * handed-in batch, so a key written again right after the hand-in would lose to its older row once
 * both commit. Per table, the highest sequence number such a batch wrote in each bucket: a writer
 * made later starts that bucket above it and above the bucket's committed files, through Paimon's
 * own restore of a write ({@code AbstractFileStoreWrite.restore}, as {@link CarriedBuckets} uses),
 * from the state of a writer Paimon opened for the bucket. Thread-safe: the control thread reads
 * batches, the task's thread raises and applies floors.
 */
final class SequenceFloors {
  /** At most this many buckets per batch: a larger one is waited for instead (it is untrusted). */
  static final int MAX_BUCKETS = 10_000;

  /** One bucket of one partition of a table. */
  record Bucket(BinaryRow partition, int bucket) {}

  /** The highest sequence number written to a bucket, and the table's bucket count then. */
  record Floor(int totalBuckets, long maxSequence) {
    Floor max(Floor other) {
      return other.maxSequence > maxSequence ? other : this;
    }
  }

  private final Map<TableId, Map<Bucket, Floor>> floors = new ConcurrentHashMap<>();

  /**
   * The floors {@code files} (a batch of {@code table}, from the control topic) set; empty when a
   * writer cannot be numbered above them: the payload cannot be read, or the table's buckets are
   * not fixed (a dynamic bucket index) or keep deletion vectors, which a restored writer would not
   * have. An append table (no primary key) needs none.
   */
  static Optional<Map<Bucket, Floor>> of(FileStoreTable table, PreparedFiles files) {
    if (table.primaryKeys().isEmpty()) {
      return Optional.of(Map.of());
    }
    if (table.bucketMode() != BucketMode.HASH_FIXED) {
      return Optional.empty();
    }
    List<CommitMessage> messages;
    try {
      messages = CommitMessagesCodec.decode(files.payloadVersion(), files.payload());
    } catch (CommitMessagesCodec.InvalidCommitMessagesException e) {
      return Optional.empty();
    }
    if (messages.size() > MAX_BUCKETS) {
      return Optional.empty();
    }
    Map<Bucket, Floor> floors = new HashMap<>();
    for (CommitMessage m : messages) {
      CommitMessageImpl message = (CommitMessageImpl) m;
      Integer total = message.totalBuckets();
      int totalBuckets = total != null ? total : table.coreOptions().bucket();
      if (message.bucket() < 0 || totalBuckets <= 0 || message.bucket() >= totalBuckets) {
        return Optional.empty();
      }
      long max = -1;
      for (DataFileMeta file : message.newFilesIncrement().newFiles()) {
        max = Math.max(max, file.maxSequenceNumber());
      }
      if (max >= 0) {
        floors.merge(
            new Bucket(message.partition(), message.bucket()),
            new Floor(totalBuckets, max),
            Floor::max);
      }
    }
    return Optional.of(floors);
  }

  /** Writers of {@code table} made from now on number the buckets of {@code batch} above it. */
  void raise(TableId table, Map<Bucket, Floor> batch) {
    if (batch.isEmpty()) {
      return;
    }
    floors.compute(
        table,
        (t, known) -> {
          Map<Bucket, Floor> merged = known == null ? new HashMap<>() : new HashMap<>(known);
          batch.forEach((bucket, floor) -> merged.merge(bucket, floor, Floor::max));
          return Map.copyOf(merged);
        });
  }

  /** The floors of {@code table}, none when no batch raised them. */
  Map<Bucket, Floor> of(TableId table) {
    return floors.getOrDefault(table, Map.of());
  }

  /**
   * Opens in {@code write} (new, nothing written) a writer for each bucket of {@code floors} the
   * way Paimon opens one (its committed files' sequence numbers, its deletion vectors), numbering
   * above the floor where that is higher.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static void apply(TableWriteImpl<?> write, Map<Bucket, Floor> floors) {
    if (floors.isEmpty()) {
      return;
    }
    AbstractFileStoreWrite<?> store = (AbstractFileStoreWrite<?>) write.getWrite();
    List<FileStoreWrite.State<?>> states = new ArrayList<>(floors.size());
    for (Map.Entry<Bucket, Floor> e : floors.entrySet()) {
      AbstractFileStoreWrite.WriterContainer<?> opened =
          store.createWriterContainer(e.getKey().partition(), e.getKey().bucket());
      try {
        states.add(new Raised<>(e.getKey(), opened, e.getValue().maxSequence()));
      } finally {
        try {
          opened.writer.close(); // nothing written: the restored writer replaces it
        } catch (Exception closing) {
          throw new IllegalStateException("Cannot close an empty Paimon bucket writer", closing);
        }
      }
    }
    ((TableWriteImpl) write).restore((List) states);
  }

  /**
   * A bucket writer's state as Paimon's restore takes it: the state of a writer Paimon just opened
   * ({@code opened}), numbering from {@code floor} where that is above it; no files to compact (the
   * writes are write-only).
   */
  private static final class Raised<T> extends FileStoreWrite.State<T> {
    Raised(Bucket bucket, AbstractFileStoreWrite.WriterContainer<?> opened, long floor) {
      super(
          bucket.partition(),
          bucket.bucket(),
          opened.totalBuckets,
          Snapshot.FIRST_SNAPSHOT_ID - 1,
          Long.MIN_VALUE,
          List.of(),
          Math.max(floor, opened.writer.maxSequenceNumber()),
          opened.dynamicBucketMaintainer,
          opened.deletionVectorsMaintainer,
          null);
    }
  }
}
