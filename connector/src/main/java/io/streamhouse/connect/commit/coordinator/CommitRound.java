package io.streamhouse.connect.commit.coordinator;

import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * One commit round in progress. {@code handingOver}: tasks that asked for the round because they
 * lose partitions; once each of them answered (after its request), the round commits without
 * waiting for the other tasks.
 */
record CommitRound(
    long commitId,
    long startedAt,
    Set<TopicPartition> expected,
    Set<TopicPartition> reported,
    Set<Integer> handingOver,
    Set<Integer> answeredHandOver,
    Set<Integer> reporters) {
  boolean handOverAnswered() {
    return !handingOver.isEmpty() && answeredHandOver.containsAll(handingOver);
  }
}
