package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.SnapshotKeys;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * The {@link UnseenKeys} of the keyed batches the coordinator committed lately, by table and
 * snapshot, so that a batch whose index was read before one of those commits is checked against the
 * keys other writers inserted or deleted unseen in it: two such batches of one key would each leave
 * a live row. A task's index reads what other tasks committed when it prepares ({@link
 * OtherWritersCatchUp}), so a batch normally has no commit of the connector since its index's
 * snapshot and nothing here is asked; a batch prepared while the round before was being committed
 * has one. Bounded: the oldest commits are forgotten first, and a batch with unseen keys whose
 * index predates a commit this history does not hold (forgotten, or made by a coordinator before
 * this one) is rejected, since nobody can say which keys that commit inserted.
 */
final class UnseenKeyHistory {
  /** At most this many hashes (8 bytes each) are kept, over all tables. */
  static final long MAX_HASHES = 4L << 20;

  /** At most this many commits are kept, over all tables. */
  static final int MAX_COMMITS = 4096;

  /** One committed batch: its writer and its unseen keys. */
  record Batch(long writer, long[] unseen) {}

  private record Commit(TableId table, long snapshotId) {}

  private final Map<Commit, List<Batch>> commits = new LinkedHashMap<>();
  private long hashes;

  /** The batches of {@code snapshotId}, which the coordinator just committed to {@code table}. */
  synchronized void committed(TableId table, long snapshotId, List<Batch> batches) {
    List<Batch> kept = List.copyOf(batches);
    List<Batch> previous = commits.put(new Commit(table, snapshotId), kept);
    hashes += count(kept) - (previous == null ? 0 : count(previous));
    Iterator<Map.Entry<Commit, List<Batch>>> oldest = commits.entrySet().iterator();
    while ((hashes > MAX_HASHES || commits.size() > MAX_COMMITS) && oldest.hasNext()) {
      hashes -= count(oldest.next().getValue());
      oldest.remove();
    }
  }

  /**
   * Why a batch of {@code writer} with {@code unseen} keys, whose index was read at snapshot {@code
   * base} of {@code table}, cannot be committed: another writer's batch committed since holds one
   * of its unseen keys, or a commit since is not known here. Empty if it can (and always for a
   * batch without unseen keys). {@code keys} tell the connector's commits.
   */
  Optional<String> problem(
      TableId id, Table table, SnapshotKeys keys, long writer, long base, long[] unseen) {
    if (unseen.length == 0) {
      return Optional.empty();
    }
    Optional<ForeignSnapshots.Since> since = ForeignSnapshots.since(table, keys, base);
    if (since.isEmpty()) {
      return Optional.empty(); // the batch is rejected for that already (KeyedBatchCheck)
    }
    for (Snapshot commit : since.get().commits()) {
      List<Batch> batches;
      synchronized (this) {
        batches = commits.get(new Commit(id, commit.snapshotId()));
      }
      if (batches == null) {
        return Optional.of(
            "it inserted or deleted "
                + unseen.length
                + " key(s) its index had no row of, and snapshot "
                + commit.snapshotId()
                + " was committed since its index was read (snapshot "
                + base
                + ") by a coordinator that did not tell which keys it inserted");
      }
      Optional<String> clash = clash(writer, unseen, batches);
      if (clash.isPresent()) {
        return Optional.of(clash.get() + " in snapshot " + commit.snapshotId());
      }
    }
    return Optional.empty();
  }

  /**
   * Why {@code unseen} of {@code writer} clashes with a batch of another writer among {@code
   * batches}; empty if it does not.
   */
  static Optional<String> clash(long writer, long[] unseen, List<Batch> batches) {
    for (Batch other : batches) {
      if (other.writer() == writer) {
        continue; // the writer's index knows what it wrote itself
      }
      OptionalLong common = UnseenKeys.common(unseen, other.unseen());
      if (common.isPresent()) {
        return Optional.of(
            "a key it inserted or deleted without a row of it in its index (key hash "
                + Long.toHexString(common.getAsLong())
                + ") was inserted or deleted the same way by another task's batch: the key's"
                + " records come from two Kafka partitions");
      }
    }
    return Optional.empty();
  }

  /** The batches this history holds, for tests. */
  synchronized int size() {
    return commits.size();
  }

  private static long count(List<Batch> batches) {
    long n = 0;
    for (Batch b : batches) {
      n += b.unseen().length;
    }
    return n;
  }
}
