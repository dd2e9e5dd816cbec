package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.protocol.OfferedBatch;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * The order in which the tasks' keyed batches of one commit claim the rows they change. When
 * batches of two tasks change one key (a key on two Kafka partitions), the first keeps its change
 * and the other is rejected: its task reads its index and the records again. Offered as the tasks
 * answered, the same task lost every round while keys spread over partitions at random, and fell
 * behind for good; here the task that goes first turns with the commit id, so each task goes first
 * in every k-th round of k tasks.
 */
final class WriterTurns {
  private WriterTurns() {}

  /**
   * {@code batches} with the tasks in turn for commit {@code commitId}: each task's batches keep
   * their order; all keep the order offered when batches of two tasks cover one partition (a
   * hand-over: the later range must follow the earlier) or none is keyed ({@code keyed}, by batch
   * id).
   */
  static List<OfferedBatch> order(
      List<OfferedBatch> batches, Map<String, KeyedFilesCodec.KeyedFiles> keyed, long commitId) {
    TreeSet<Integer> tasks = new TreeSet<>();
    Map<TopicPartition, Integer> taskOf = new HashMap<>();
    for (OfferedBatch batch : batches) {
      if (!keyed.containsKey(batch.batchId())) {
        continue;
      }
      tasks.add(batch.taskId());
      for (TopicPartition tp : batch.ranges().keySet()) {
        Integer other = taskOf.putIfAbsent(tp, batch.taskId());
        if (other != null && other != batch.taskId()) {
          return batches;
        }
      }
    }
    if (tasks.size() < 2) {
      return batches;
    }
    List<Integer> inOrder = new ArrayList<>(tasks);
    int first = (int) Math.floorMod(commitId, (long) inOrder.size());
    Map<Integer, Integer> turn = new HashMap<>();
    for (int i = 0; i < inOrder.size(); i++) {
      turn.put(inOrder.get((first + i) % inOrder.size()), i);
    }
    List<OfferedBatch> ordered = new ArrayList<>(batches);
    ordered.sort(Comparator.comparingInt(b -> turn.getOrDefault(b.taskId(), -1))); // stable
    return ordered;
  }
}
