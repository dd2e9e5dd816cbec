package io.streamhouse.e2e.bench;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.regex.Pattern;
import javax.management.ObjectName;

/**
 * Whether a connector's tasks have been handed the last record of every partition of a topic, from
 * the lag that Connect's consumers report over JMX ({@code records-lag} of {@code
 * consumer-fetch-manager-metrics}: the partition's high watermark less the position after the
 * records the consumer's last poll returned). A drain ends at the first commit round after its last
 * record, so drain times come in steps of the commit interval; the time of the last record read has
 * no commit in it and no such steps, and is the same measure for every sink, the do-nothing sink's
 * too.
 */
final class LastRecordRead {
  private final BiFunction<String, String, Map<ObjectName, Double>> mbeans;
  private final String pattern;
  private final Pattern taskClient;
  private final int partitions;

  /**
   * {@code mbeans} reads a numeric attribute (second argument) of the MBeans matching a pattern
   * (first), as {@link io.streamhouse.e2e.WorkerJmx#valuesByName} does.
   */
  LastRecordRead(
      BiFunction<String, String, Map<ObjectName, Double>> mbeans,
      String connector,
      String topic,
      int partitions) {
    this.mbeans = mbeans;
    // Connect names a sink task's consumer connector-consumer-<connector>-<task>
    this.pattern =
        "kafka.consumer:type=consumer-fetch-manager-metrics,client-id=connector-consumer-"
            + connector
            + "-*,topic="
            + topic
            + ",partition=*";
    this.taskClient =
        Pattern.compile(Pattern.quote("connector-consumer-" + connector + "-") + "\\d+");
    this.partitions = partitions;
  }

  /**
   * True once, for every partition, a consumer of one of the connector's tasks has no record left
   * to read. A partition whose consumer has not returned a record yet reports no lag.
   */
  boolean allRead() {
    Set<String> caughtUp = new HashSet<>();
    mbeans
        .apply(pattern, "records-lag")
        .forEach(
            (name, lag) -> {
              if (lag == 0 && taskClient.matcher(name.getKeyProperty("client-id")).matches()) {
                caughtUp.add(name.getKeyProperty("partition"));
              }
            });
    return caughtUp.size() == partitions;
  }
}
