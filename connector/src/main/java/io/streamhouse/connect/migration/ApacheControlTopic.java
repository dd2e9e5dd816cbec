package io.streamhouse.connect.migration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Apache Iceberg sink's control topic, as the take-over from that sink reads it: committed
 * events only (its workers send {@code DataWritten} in the Kafka transaction that also commits the
 * source offsets), from the offsets its coordinator's group {@code <group-id>-coord} committed
 * (that coordinator commits them once every table has the events before them) or the log start, up
 * to the end when reading began.
 */
final class ApacheControlTopic implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ApacheControlTopic.class);

  private final String topic;
  private final String coordinatorGroup;
  private final KafkaConsumer<byte[], byte[]> consumer;

  ApacheControlTopic(Map<String, Object> kafkaProps, String topic, String groupId, String client) {
    this.topic = topic;
    this.coordinatorGroup = groupId + "-coord";
    Map<String, Object> props = new HashMap<>(kafkaProps);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, coordinatorGroup);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, client);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    this.consumer = new KafkaConsumer<>(props);
  }

  /** The events not yet known to be in every table, up to the end; empty if there is no topic. */
  ControlLog read(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
    if (infos == null || infos.isEmpty()) {
      LOG.info("The Apache sink's control topic {} does not exist: nothing to take over", topic);
      return new ControlLog(List.of(), Map.of());
    }
    List<TopicPartition> partitions = new ArrayList<>();
    infos.forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
    consumer.assign(partitions);
    Map<TopicPartition, OffsetAndMetadata> committed =
        consumer.committed(new HashSet<>(partitions), timeout);
    Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions, timeout);
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
    Set<TopicPartition> unfinished = new HashSet<>();
    for (TopicPartition tp : partitions) {
      OffsetAndMetadata c = committed.get(tp);
      long start = begin.get(tp);
      if (c != null && c.offset() >= start) {
        start = c.offset();
      } else if (c != null) {
        LOG.warn(
            "Events {}..{} of the Apache sink's control topic partition {} were deleted before its"
                + " coordinator read them; files they reported cannot be taken over",
            c.offset(),
            start - 1,
            tp);
      }
      consumer.seek(tp, start);
      if (start < end.get(tp)) {
        unfinished.add(tp);
      }
    }
    List<ControlLog.Record> records = new ArrayList<>();
    while (!unfinished.isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "reading the Apache sink's control topic " + topic + " took longer than " + timeout);
      }
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        if (r.offset() < end.get(tp)) {
          records.add(new ControlLog.Record(r.partition(), r.offset(), r.value()));
        }
      }
      unfinished.removeIf(tp -> consumer.position(tp) >= end.get(tp));
    }
    Map<Integer, Long> ends = new HashMap<>();
    end.forEach((tp, o) -> ends.put(tp.partition(), o));
    return new ControlLog(records, ends);
  }

  /**
   * Moves the Apache coordinator's group to {@code end} once every table has what was read, so that
   * the next start reads only what came later. Best effort: the tables' own offsets decide.
   */
  void markRead(Map<Integer, Long> end) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    end.forEach((p, o) -> offsets.put(new TopicPartition(topic, p), new OffsetAndMetadata(o)));
    try {
      consumer.commitSync(offsets);
    } catch (RuntimeException e) {
      LOG.warn(
          "Could not move group {} on {} past the taken-over events: {}",
          coordinatorGroup,
          topic,
          e.toString());
    }
  }

  /**
   * {@code close(Duration)}: see {@code LagMonitor.closeClients} for why not {@code CloseOptions}.
   */
  @Override
  @SuppressWarnings("deprecation")
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }
}
