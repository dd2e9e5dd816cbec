package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.protocol.TableId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;

/**
 * Coordinator: per bucket, the level-0 files the coordinator committed since the bucket's last
 * compaction job. Each level-0 file is a sorted run of its own, so a bucket is due for a compaction
 * once it has as many as Paimon's {@code num-sorted-run.compaction-trigger}. A bucket starts again
 * from zero when a job for it is handed out: whatever Paimon leaves uncompacted then (it may merge
 * only some runs) is at most a trigger's worth, taken along by the next job. A new coordinator
 * starts from zero too; it hands out a job for every bucket that has level-0 files when it starts
 * ({@link PaimonCompactor#jobsForLevelZero}).
 */
final class LevelZeroCounts {
  private final Map<TableId, Map<PaimonCompactor.Bucket, Integer>> counts =
      new ConcurrentHashMap<>();

  /**
   * Counts the new files of {@code applied} (written batches just committed) and returns the
   * buckets that now have at least {@code trigger} level-0 files.
   */
  List<PaimonCompactor.Bucket> committed(TableId id, List<CommitMessage> applied, int trigger) {
    Map<PaimonCompactor.Bucket, Integer> table = counts.computeIfAbsent(id, t -> new HashMap<>());
    List<PaimonCompactor.Bucket> due = new ArrayList<>();
    synchronized (table) {
      for (CommitMessage message : applied) {
        int files = ((CommitMessageImpl) message).newFilesIncrement().newFiles().size();
        PaimonCompactor.Bucket bucket = PaimonCompactor.Bucket.of(message);
        if (table.merge(bucket, files, Integer::sum) >= trigger && !due.contains(bucket)) {
          due.add(bucket);
        }
      }
    }
    return due;
  }

  /** Jobs for {@code buckets} are handed out: they count from zero again. */
  void handedOut(TableId id, Collection<PaimonCompactor.Bucket> buckets) {
    Map<PaimonCompactor.Bucket, Integer> table = counts.get(id);
    if (table != null) {
      synchronized (table) {
        buckets.forEach(table::remove);
      }
    }
  }
}
