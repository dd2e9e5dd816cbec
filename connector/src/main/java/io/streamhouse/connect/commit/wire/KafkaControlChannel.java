package io.streamhouse.connect.commit.wire;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control topic as one participant sees it: it sends events and reads every event sent after it
 * joined (no consumer group, nothing durable: a new reader starts at the end). A task's channel
 * also reads back a short while before it joined, for the batches handed in and decided then only
 * ({@link #HAND_IN_LOOKBACK}): a task started again takes over the partitions its last instance
 * handed in a moment before, and reads on after those batches (docs/architecture.md, "Reading on
 * after a hand-in").
 */
public final class KafkaControlChannel implements ControlChannel {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaControlChannel.class);

  /** The control topic only carries in-flight commit rounds. */
  static final String RETENTION_MS = Long.toString(Duration.ofHours(1).toMillis());

  private final String topic;
  private final ControlEventCodec codec;
  private final ControlEventRejections rejections;
  private final KafkaProducer<byte[], byte[]> producer;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Admin admin;

  /**
   * How far back a task's channel reads hand-ins and decisions when it joins: longer than a task's
   * stop and Connect's start of its next instance, seconds.
   */
  public static final Duration HAND_IN_LOOKBACK = Duration.ofSeconds(30);

  /** Per partition, where the channel joined: what comes before is read back for hand-ins only. */
  private final Map<Integer, Long> joinedAt = new HashMap<>();

  public KafkaControlChannel(
      String topic,
      String connector,
      ControlEventCodec codec,
      ControlEventRejections rejections,
      String clientId,
      Map<String, Object> kafkaProps,
      Admin admin) {
    this(topic, connector, codec, rejections, clientId, kafkaProps, admin, Duration.ZERO);
  }

  /**
   * {@code lookback}: how far back before joining it reads the hand-ins ({@link
   * ControlEvent#NO_ROUND} batches) and decisions, and nothing else; zero for none. {@code admin}:
   * the task's admin client, which finds where the topic ends ({@link #endOffsets()}); the caller
   * closes it.
   */
  public KafkaControlChannel(
      String topic,
      String connector,
      ControlEventCodec codec,
      ControlEventRejections rejections,
      String clientId,
      Map<String, Object> kafkaProps,
      Admin admin,
      Duration lookback) {
    this.topic = topic;
    this.admin = admin;
    this.codec = codec;
    this.rejections = rejections;
    Map<String, Object> p = new HashMap<>(kafkaProps);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId + "-producer");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(CHUNK_BYTES * 2));
    this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    Map<String, Object> c = new HashMap<>(kafkaProps);
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-consumer");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
    this.consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    List<TopicPartition> partitions = new ArrayList<>();
    for (PartitionInfo info : partitionsOf(consumer, topic, connector, Duration.ofSeconds(30))) {
      partitions.add(new TopicPartition(topic, info.partition()));
    }
    consumer.assign(partitions);
    consumer.seekToEnd(partitions);
    // Pin the start now: events sent later are seen.
    partitions.forEach(tp -> joinedAt.put(tp.partition(), consumer.position(tp)));
    if (!lookback.isZero()) {
      readBack(partitions, lookback);
    }
  }

  /** Starts {@code lookback} before the end, where the topic still holds that much. */
  private void readBack(List<TopicPartition> partitions, Duration lookback) {
    Map<TopicPartition, Long> since = new HashMap<>();
    long from = System.currentTimeMillis() - lookback.toMillis();
    partitions.forEach(tp -> since.put(tp, from));
    try {
      consumer
          .offsetsForTimes(since, Duration.ofSeconds(10))
          .forEach(
              (tp, found) -> {
                if (found != null) {
                  consumer.seek(tp, found.offset());
                }
              });
    } catch (RuntimeException e) {
      LOG.warn(
          "Cannot read back the control topic {} (starts at its end): {}", topic, e.toString());
      partitions.forEach(tp -> consumer.seek(tp, joinedAt.get(tp.partition())));
    }
  }

  @Override
  public boolean keepsOrder() {
    return true;
  }

  /**
   * Asked of the admin client, not of the consumer: the consumer's request goes on the connection
   * of its own fetch, which the broker holds up to {@code fetch.max.wait.ms} (500 ms) while the
   * topic is quiet, and answering it waited for that fetch: 0.3-0.45 s at a task's first
   * assignment, every one of them spent with its partitions held.
   */
  @Override
  public Map<Integer, Long> endOffsets() {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    consumer.assignment().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
    Map<Integer, Long> ends = new HashMap<>();
    try {
      admin
          .listOffsets(latest)
          .all()
          .get(10, TimeUnit.SECONDS)
          .forEach((tp, end) -> ends.put(tp.partition(), end.offset()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while finding the end of " + topic, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("Cannot find the end of control topic " + topic, e);
    }
    return ends;
  }

  @Override
  public boolean readUpTo(Map<Integer, Long> ends) {
    for (Map.Entry<Integer, Long> end : ends.entrySet()) {
      if (consumer.position(new TopicPartition(topic, end.getKey())) < end.getValue()) {
        return false;
      }
    }
    return true;
  }

  /**
   * The control topic's partitions. Right after the topic was created the client's metadata may not
   * know it yet and answers with none: ask again until {@code timeout}.
   */
  static List<PartitionInfo> partitionsOf(
      Consumer<?, ?> consumer, String topic, String connector, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<PartitionInfo> partitions = consumer.partitionsFor(topic, timeout);
    while (partitions == null || partitions.isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "Connector "
                + connector
                + ": control topic "
                + topic
                + " has no partitions "
                + "known to the brokers after "
                + timeout.toMillis()
                + " ms");
      }
      try {
        Thread.sleep(100); // metadata backoff
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while waiting for control topic " + topic, e);
      }
      partitions = consumer.partitionsFor(topic, timeout);
    }
    return partitions;
  }

  /** Creates the control topic (1 partition, short retention) if it does not exist. */
  public static void ensureTopic(Admin admin, String topic) {
    try {
      if (admin.listTopics().names().get().contains(topic)) {
        return;
      }
      int brokers = admin.describeCluster().nodes().get().size();
      NewTopic newTopic =
          new NewTopic(topic, 1, (short) Math.min(3, brokers))
              .configs(Map.of("retention.ms", RETENTION_MS, "cleanup.policy", "delete"));
      admin.createTopics(List.of(newTopic)).all().get();
      LOG.info("Created control topic {}", topic);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException(
            "Cannot create control topic " + topic + ": " + e.getCause(), e.getCause());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while creating control topic " + topic, e);
    }
  }

  @Override
  public void send(List<? extends ControlEvent> events) {
    List<Future<?>> sends = new ArrayList<>();
    for (ControlEvent event : events) {
      sends.add(producer.send(new ProducerRecord<>(topic, codec.encode(event))));
    }
    producer.flush();
    for (var send : sends) {
      try {
        send.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while sending control events", e);
      } catch (ExecutionException e) {
        throw new IllegalStateException(
            "Cannot send to control topic " + topic + ": " + e.getCause(), e.getCause());
      }
    }
  }

  @Override
  public List<ControlEvent> poll(Duration timeout) {
    List<ControlEvent> events = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(timeout)) {
      boolean before = record.offset() < joinedAt.getOrDefault(record.partition(), 0L);
      try {
        codec
            .decode(record.value())
            .filter(e -> !before || handInOrDecision(e))
            .ifPresent(events::add);
      } catch (InvalidControlEventException e) {
        rejections.rejected(record.topic(), record.partition(), record.offset(), e);
      } catch (RuntimeException bug) {
        // The decoder ends every bad input in InvalidControlEventException
        // (ControlEventCodecFuzzTest);
        // should one still slip through, it costs one event, not the thread that reads them.
        rejections.rejected(
            record.topic(),
            record.partition(),
            record.offset(),
            new InvalidControlEventException(
                InvalidControlEventException.Reason.MALFORMED, "unexpected " + bug));
      }
    }
    return events;
  }

  /** What a channel reads from before it joined: hand-ins and decisions. */
  private static boolean handInOrDecision(ControlEvent event) {
    return event instanceof ControlEvent.TableCommitted
        || event instanceof ControlEvent.BatchChunk chunk
            && chunk.commitId() == ControlEvent.NO_ROUND;
  }

  @Override
  public void wakeup() {
    consumer.wakeup();
  }

  /**
   * {@code KafkaConsumer.close(Duration)}: see {@code LagMonitor.closeClients} for why not {@code
   * CloseOptions}.
   */
  @Override
  @SuppressWarnings("deprecation")
  public void close() {
    producer.close(Duration.ofSeconds(5));
    consumer.close(Duration.ofSeconds(5));
  }
}
