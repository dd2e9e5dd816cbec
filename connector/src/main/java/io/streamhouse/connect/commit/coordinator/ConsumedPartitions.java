package io.streamhouse.connect.commit.coordinator;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every partition of the topics the connector consumes (its topics list or regex), from the Admin
 * API.
 */
public final class ConsumedPartitions implements Supplier<Set<TopicPartition>> {
  private static final Logger LOG = LoggerFactory.getLogger(ConsumedPartitions.class);
  private final Admin admin;
  private final List<String> topics;
  private final Pattern regex;

  /** Read by the coordinator's and the lag monitor's threads. */
  private volatile Set<TopicPartition> last = Set.of();

  private volatile boolean warnedNoneVisible;

  public ConsumedPartitions(Admin admin, List<String> topics, String regex) {
    this.admin = admin;
    this.topics = List.copyOf(topics);
    this.regex = regex == null ? null : Pattern.compile(regex);
  }

  @Override
  public Set<TopicPartition> get() {
    try {
      List<String> names = new ArrayList<>(topics);
      if (regex != null) {
        for (String t : admin.listTopics().names().get()) {
          if (regex.matcher(t).matches()) {
            names.add(t);
          }
        }
      }
      Set<TopicPartition> partitions = new HashSet<>();
      for (TopicDescription d : admin.describeTopics(names).allTopicNames().get().values()) {
        d.partitions().forEach(p -> partitions.add(new TopicPartition(d.name(), p.partition())));
      }
      if (partitions.isEmpty() && regex != null && !warnedNoneVisible) {
        warnedNoneVisible = true; // a new connector may wait for its topics; say it once
        LOG.warn(
            "No topic visible to the connector's own Kafka clients matches topics.regex '{}': if the topics "
                + "exist, the kafka.* principal needs READ (or DESCRIBE) on them, or the lag monitor and the coordinator "
                + "see none of their partitions",
            regex);
      }
      last = partitions;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      LOG.warn(
          "Cannot list the consumed partitions ({}); using the last known {}", e.toString(), last);
    }
    return last;
  }
}
