package io.streamhouse.connect.commit.task;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * What a reset did: where each assigned partition is read again from (the caller seeks there), and
 * how many offsets the task had read that it reads again.
 */
public record Rewind(Map<TopicPartition, Long> positions, long offsetsReadAgain) {
  public Rewind {
    positions = Map.copyOf(positions);
  }
}
