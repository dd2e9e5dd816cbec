package io.streamhouse.connect.monitor;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lag-versus-retention monitor, in task 0: every {@code lag.check-interval.ms} it reads, per
 * topic-partition the connector consumes, the log start and end offsets, the connector's committed
 * offset, the timestamp of the oldest record not yet committed (a consumer with {@code
 * auto.offset.reset=none}, so a deleted position is never mistaken for a fresh one) and the topic's
 * retention (cached), and publishes {@link LagArithmetic}'s figures as metrics. When the log start
 * has passed the committed offset, Kafka deleted records the tables never got: it counts them once,
 * logs an ERROR naming the partition and offsets and, with {@code lag.on-data-loss=fail}, fails the
 * task.
 */
public final class LagMonitor implements Runnable, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LagMonitor.class);
  private static final long RETENTION_REFRESH_MS = 10 * 60_000L;

  private final String connector;
  private final Admin admin;
  private final Map<String, Object> consumerProps;
  private final Supplier<Set<TopicPartition>> partitions;
  private final LagMetrics metrics;
  private final long intervalMs;
  private final Clock clock;
  private final boolean failOnLoss;

  /** Each topic's retention, read again once it is older than RETENTION_REFRESH_MS. */
  private final Cache<String, TopicRetention> retention;

  private final Map<TopicPartition, Long> lossCountedUpTo = new HashMap<>();
  private final Object wake = new Object();
  private KafkaConsumer<byte[], byte[]> consumer;
  private volatile boolean running = true;
  private volatile ConnectException failure;

  public LagMonitor(
      String connector,
      Admin admin,
      Map<String, Object> kafkaClientProps,
      Supplier<Set<TopicPartition>> partitions,
      LagMetrics metrics,
      long intervalMs,
      Clock clock,
      boolean failOnLoss) {
    this.connector = connector;
    this.admin = admin;
    this.consumerProps = new HashMap<>(kafkaClientProps);
    consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    consumerProps.put(ConsumerConfig.CLIENT_ID_CONFIG, connector + "-lag-monitor");
    consumerProps.remove(ConsumerConfig.GROUP_ID_CONFIG);
    this.partitions = partitions;
    this.metrics = metrics;
    this.intervalMs = intervalMs;
    this.clock = clock;
    this.failOnLoss = failOnLoss;
    this.retention =
        Caffeine.newBuilder()
            .expireAfterWrite(Duration.ofMillis(RETENTION_REFRESH_MS))
            .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
            .executor(Runnable::run)
            .build();
  }

  @Override
  public void run() {
    LOG.info(
        "Lag monitor of connector {} started (every {} ms, on data loss: {})",
        connector,
        intervalMs,
        failOnLoss ? "fail" : "warn");
    while (running) {
      try {
        check();
      } catch (WakeupException stopping) {
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        if (running) {
          LOG.warn("A lag check failed; the next one is in {} ms", intervalMs, e);
        }
      }
      synchronized (wake) {
        try {
          if (running) {
            wake.wait(intervalMs); // the check interval, not synchronization with another thread
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** One check of every partition the connector consumes. */
  void check() throws Exception {
    Set<TopicPartition> tps = partitions.get();
    if (tps.isEmpty()) {
      return;
    }
    Map<TopicPartition, Long> start = offsets(tps, OffsetSpec.earliest());
    Map<TopicPartition, Long> end = offsets(tps, OffsetSpec.latest());
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin
            .listConsumerGroupOffsets("connect-" + connector)
            .partitionsToOffsetAndMetadata()
            .get();
    Map<String, TopicRetention> retentions =
        retention(tps.stream().map(TopicPartition::topic).collect(Collectors.toSet()));
    Map<TopicPartition, Long> sizes =
        retentions.values().stream().anyMatch(TopicRetention::deletesBySize)
            ? sizes(tps)
            : Map.of();
    Map<TopicPartition, Long> positions = new HashMap<>();
    for (TopicPartition tp : tps) {
      OffsetAndMetadata c = committed.get(tp);
      // No committed offset yet: the sink consumer starts at the log start
      // (auto.offset.reset=earliest).
      positions.put(tp, c == null ? start.get(tp) : c.offset());
    }
    Map<TopicPartition, Long> timestamps = oldestTimestamps(positions, start, end);
    long now = clock.millis();
    for (TopicPartition tp : tps) {
      long position = positions.get(tp);
      PartitionLag lag =
          LagArithmetic.of(
              start.get(tp),
              end.get(tp),
              position,
              timestamps.getOrDefault(tp, -1L),
              sizes.getOrDefault(tp, -1L),
              retentions.get(tp.topic()),
              now);
      metrics.update(tp, lag);
      if (lag.lostRecords() > 0) {
        lost(tp, position, start.get(tp), retentions.get(tp.topic()));
      }
    }
  }

  private void lost(TopicPartition tp, long committed, long logStart, TopicRetention retention) {
    long from = Math.max(committed, lossCountedUpTo.getOrDefault(tp, committed));
    if (logStart <= from) {
      return; // counted before
    }
    String message =
        "Connector "
            + connector
            + ": Kafka deleted records ["
            + from
            + ", "
            + logStart
            + ") of "
            + tp
            + " before the sink read them: "
            + (logStart - from)
            + " records lost (committed offset "
            + committed
            + ", log start "
            + logStart
            + ", retention.ms "
            + retention.retentionMs()
            + ", retention.bytes "
            + retention.retentionBytes()
            + ")";
    LOG.error(message);
    // Counted after the log line, so whoever sees the count also finds the line.
    metrics.lost(tp, logStart - from);
    lossCountedUpTo.put(tp, logStart);
    if (failOnLoss && failure == null) {
      failure = new ConnectException(message + "; lag.on-data-loss=fail stops the connector");
    }
  }

  private Map<TopicPartition, Long> offsets(Set<TopicPartition> tps, OffsetSpec spec)
      throws Exception {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    tps.forEach(tp -> request.put(tp, spec));
    Map<TopicPartition, Long> result = new HashMap<>();
    for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e :
        admin.listOffsets(request).all().get().entrySet()) {
      result.put(e.getKey(), e.getValue().offset());
    }
    return result;
  }

  /**
   * The retention of each of {@code topics}: those not known or known too long read in one call.
   */
  private Map<String, TopicRetention> retention(Set<String> topics) throws Exception {
    Map<String, TopicRetention> known = new HashMap<>(retention.getAllPresent(topics));
    List<ConfigResource> resources =
        topics.stream()
            .filter(t -> !known.containsKey(t))
            .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
            .toList();
    if (!resources.isEmpty()) {
      for (Map.Entry<ConfigResource, Config> e :
          admin.describeConfigs(resources).all().get().entrySet()) {
        Config c = e.getValue();
        TopicRetention read =
            TopicRetention.of(
                c.get("retention.ms").value(),
                c.get("retention.bytes").value(),
                c.get("cleanup.policy").value());
        retention.put(e.getKey().name(), read);
        known.put(e.getKey().name(), read);
      }
    }
    return known;
  }

  /** Bytes per partition on its largest replica. */
  private Map<TopicPartition, Long> sizes(Set<TopicPartition> tps) throws Exception {
    List<Integer> brokers = admin.describeCluster().nodes().get().stream().map(Node::id).toList();
    Map<TopicPartition, Long> sizes = new HashMap<>();
    for (Map<String, LogDirDescription> dirs :
        admin.describeLogDirs(brokers).allDescriptions().get().values()) {
      for (LogDirDescription dir : dirs.values()) {
        for (Map.Entry<TopicPartition, ReplicaInfo> r : dir.replicaInfos().entrySet()) {
          if (tps.contains(r.getKey())) {
            sizes.merge(r.getKey(), r.getValue().size(), Math::max);
          }
        }
      }
    }
    return sizes;
  }

  /**
   * The timestamp of the record at each lagging position, read without ever resetting a position.
   */
  private Map<TopicPartition, Long> oldestTimestamps(
      Map<TopicPartition, Long> positions,
      Map<TopicPartition, Long> start,
      Map<TopicPartition, Long> end) {
    List<TopicPartition> lagging = new ArrayList<>();
    for (Map.Entry<TopicPartition, Long> e : positions.entrySet()) {
      if (e.getValue() < end.get(e.getKey()) && e.getValue() >= start.get(e.getKey())) {
        lagging.add(e.getKey());
      }
    }
    Map<TopicPartition, Long> timestamps = new HashMap<>();
    if (lagging.isEmpty()) {
      return timestamps;
    }
    if (consumer == null) {
      consumer =
          new KafkaConsumer<>(
              consumerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
    consumer.assign(lagging);
    lagging.forEach(tp -> consumer.seek(tp, positions.get(tp)));
    Set<TopicPartition> open = new HashSet<>(lagging);
    long deadline = clock.millis() + 5_000;
    try {
      while (!open.isEmpty() && clock.millis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          if (open.contains(tp) && r.offset() >= positions.get(tp)) {
            timestamps.put(tp, r.timestamp());
            open.remove(tp);
            consumer.pause(List.of(tp));
          }
        }
      }
    } catch (OffsetOutOfRangeException deleted) {
      // The position was deleted between the offset lookup and the read: the next check counts the
      // loss.
    } finally {
      consumer.assign(List.of());
    }
    return timestamps;
  }

  /** Why the task must stop (data loss with lag.on-data-loss=fail), or null. */
  public ConnectException failure() {
    return failure;
  }

  @Override
  public void close() {
    running = false;
    synchronized (wake) {
      wake.notifyAll();
    }
    if (consumer != null) {
      consumer.wakeup();
    }
  }

  /**
   * Closes the monitor's consumer; call after its thread ended. {@code close(Duration)} is
   * deprecated since Kafka 4.1, but its replacement ({@code CloseOptions}) is missing on the 3.9
   * workers the plugin supports.
   */
  @SuppressWarnings("deprecation")
  public void closeClients() {
    if (consumer != null) {
      consumer.close(Duration.ofSeconds(5));
    }
  }
}
