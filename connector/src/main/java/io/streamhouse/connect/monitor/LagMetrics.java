package io.streamhouse.connect.monitor;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Gauge;

/**
 * The lag monitor's figures as plugin metrics (KIP-877; on an older worker the connector's own
 * registry, same names), one gauge per figure and topic-partition plus per-topic aggregates; the
 * registry adds the {@code connector} and {@code task} tags, MBeans {@code
 * kafka.connect:type=plugins,...}. Gauges read the latest check, so nothing is shared between tasks
 * (sensor names are global to a worker; gauges are not sensors). Metric reference:
 * docs/monitoring.md.
 */
public final class LagMetrics {
  /**
   * Per topic-partition (tags topic, partition) and per topic (tag topic); docs/monitoring.md lists
   * them all.
   */
  public static final List<String> PARTITION_METRICS =
      List.of(
          "lag-records",
          "lag-seconds",
          "retention-time-used-ratio",
          "retention-size-used-ratio",
          "seconds-to-data-loss",
          "data-loss-records-total");

  public static final List<String> TOPIC_METRICS =
      List.of(
          "topic-lag-records",
          "topic-lag-seconds",
          "topic-retention-used-ratio",
          "topic-seconds-to-data-loss");

  private final PluginGauges gauges;
  private final Map<TopicPartition, PartitionLag> partitions = new ConcurrentHashMap<>();
  private final Map<TopicPartition, Long> lost = new ConcurrentHashMap<>();
  private final Map<String, Boolean> topics = new ConcurrentHashMap<>();

  /** With {@link PluginGauges#none()} the figures are kept and nothing is published. */
  public LagMetrics(PluginGauges gauges) {
    this.gauges = gauges;
  }

  /** The latest figures of {@code tp}; registers its gauges the first time. */
  public void update(TopicPartition tp, PartitionLag lag) {
    if (partitions.put(tp, lag) == null && gauges.enabled()) {
      LinkedHashMap<String, String> tags = new LinkedHashMap<>();
      tags.put("topic", tp.topic());
      tags.put("partition", Integer.toString(tp.partition()));
      gauge(
          "lag-records",
          "Records of the partition not yet in the tables",
          tags,
          l -> l.records(),
          tp);
      gauge(
          "lag-seconds",
          "Age of the oldest record not yet in the tables",
          tags,
          PartitionLag::seconds,
          tp);
      gauge(
          "retention-time-used-ratio",
          "Lag in seconds as a share of retention.ms",
          tags,
          PartitionLag::timeRatio,
          tp);
      gauge(
          "retention-size-used-ratio",
          "Bytes behind as a share of retention.bytes",
          tags,
          PartitionLag::sizeRatio,
          tp);
      gauge(
          "seconds-to-data-loss",
          "Time until Kafka may delete a record not yet in the tables",
          tags,
          l -> Double.isInfinite(l.secondsToLoss()) ? -1 : l.secondsToLoss(),
          tp);
      gauges.register(
          "data-loss-records-total",
          "Records Kafka deleted before the sink read them (a counter)",
          tags,
          (Gauge<Long>) (config, now) -> lost.getOrDefault(tp, 0L));
    }
    if (topics.putIfAbsent(tp.topic(), Boolean.TRUE) == null && gauges.enabled()) {
      LinkedHashMap<String, String> tags = new LinkedHashMap<>();
      tags.put("topic", tp.topic());
      topicGauge(
          "topic-lag-records",
          "Records of the topic not yet in the tables",
          tags,
          tp.topic(),
          true,
          l -> l.records());
      topicGauge(
          "topic-lag-seconds",
          "Age of the topic's oldest record not yet in the tables",
          tags,
          tp.topic(),
          true,
          PartitionLag::seconds);
      topicGauge(
          "topic-retention-used-ratio",
          "Largest retention share used by a partition (time or size)",
          tags,
          tp.topic(),
          true,
          l -> Math.max(l.timeRatio(), l.sizeRatio()));
      topicGauge(
          "topic-seconds-to-data-loss",
          "Shortest time until a partition may lose unread records",
          tags,
          tp.topic(),
          false,
          l -> Double.isInfinite(l.secondsToLoss()) ? Double.NaN : l.secondsToLoss());
    }
  }

  /** Adds {@code records} to the data-loss counter of {@code tp}. */
  public void lost(TopicPartition tp, long records) {
    lost.merge(tp, records, Long::sum);
  }

  public long lostTotal(TopicPartition tp) {
    return lost.getOrDefault(tp, 0L);
  }

  private void gauge(
      String name,
      String doc,
      LinkedHashMap<String, String> tags,
      ToDoubleFunction<PartitionLag> value,
      TopicPartition tp) {
    gauges.register(
        name, doc, tags, (Gauge<Double>) (config, now) -> value.applyAsDouble(partitions.get(tp)));
  }

  /**
   * A per-topic aggregate: the sum (or max) over its partitions, or the min for {@code sum ==
   * false}.
   */
  private void topicGauge(
      String name,
      String doc,
      LinkedHashMap<String, String> tags,
      String topic,
      boolean sumOrMax,
      ToDoubleFunction<PartitionLag> value) {
    boolean sum = name.endsWith("-records");
    gauges.register(
        name,
        doc,
        tags,
        (Gauge<Double>)
            (config, now) -> {
              double result = sumOrMax ? 0 : -1;
              for (Map.Entry<TopicPartition, PartitionLag> e : partitions.entrySet()) {
                if (!e.getKey().topic().equals(topic)) {
                  continue;
                }
                double v = value.applyAsDouble(e.getValue());
                if (sum) {
                  result += v;
                } else if (sumOrMax) {
                  result = Math.max(result, v);
                } else if (!Double.isNaN(v)) {
                  result = result < 0 ? v : Math.min(result, v);
                }
              }
              return result;
            });
  }
}
