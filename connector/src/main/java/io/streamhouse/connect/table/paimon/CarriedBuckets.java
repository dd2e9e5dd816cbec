package io.streamhouse.connect.table.paimon;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.operation.AbstractFileStoreWrite;
import org.apache.paimon.operation.FileStoreWrite;
import org.apache.paimon.table.sink.TableWriteImpl;

/**
 * Hands every bucket writer's sequence numbers from a table write that is being detached to the
 * write that replaces it, so that a key written after the detach numbers above every earlier write
 * of it, whose files are not committed yet (a fresh bucket writer would number from the committed
 * files only). Uses Paimon's own restore of a write ({@code AbstractFileStoreWrite.restore}), with
 * states that carry only the maximum sequence number: no files to compact (the writes are
 * write-only), no buffered records (they stay with the detached write).
 */
final class CarriedBuckets {
  private CarriedBuckets() {}

  /**
   * Whether {@code write}'s bucket writers can be carried: they keep no state beside their sequence
   * numbers that the next write would share with a flush on another thread (dynamic bucket indexes
   * do).
   */
  static boolean canCarry(TableWriteImpl<?> write) {
    if (!(write.getWrite() instanceof AbstractFileStoreWrite<?> store)) {
      return false;
    }
    for (Map<Integer, AbstractFileStoreWrite.WriterContainer<?>> buckets : containers(store)) {
      for (AbstractFileStoreWrite.WriterContainer<?> container : buckets.values()) {
        if (container.dynamicBucketMaintainer != null) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Opens in {@code to} a writer for every bucket {@code from} has, numbering from where {@code
   * from}'s writer stopped. Call before {@code from} is flushed, on the thread that wrote to it.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static void carry(TableWriteImpl<?> from, TableWriteImpl<?> to) {
    AbstractFileStoreWrite<?> store = (AbstractFileStoreWrite<?>) from.getWrite();
    List<FileStoreWrite.State<?>> states = new ArrayList<>();
    store
        .writers()
        .forEach(
            (partition, buckets) ->
                buckets.forEach(
                    (bucket, container) ->
                        states.add(new Carried<>(partition, bucket, container))));
    ((TableWriteImpl) to).restore((List) states);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Iterable<Map<Integer, AbstractFileStoreWrite.WriterContainer<?>>> containers(
      AbstractFileStoreWrite<?> store) {
    return (Iterable) store.writers().values();
  }

  /**
   * One bucket writer's state as Paimon's restore takes it: its sequence numbers and deletion
   * vectors (which a write-only writer reads, never changes), and nothing to commit.
   */
  private static final class Carried<T> extends FileStoreWrite.State<T> {
    Carried(BinaryRow partition, int bucket, AbstractFileStoreWrite.WriterContainer<?> container) {
      super(
          partition,
          bucket,
          container.totalBuckets,
          Snapshot.FIRST_SNAPSHOT_ID - 1,
          Long.MIN_VALUE,
          List.of(),
          container.writer.maxSequenceNumber(),
          null,
          container.deletionVectorsMaintainer,
          null);
    }
  }
}
