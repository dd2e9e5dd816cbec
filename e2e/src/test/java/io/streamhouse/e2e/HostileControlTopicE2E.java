package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.commit.wire.ControlEventCodec;
import io.streamhouse.connect.commit.wire.ControlEventRejections;
import io.streamhouse.connect.commit.wire.ControlEventSigner;
import io.streamhouse.connect.commit.wire.KafkaControlChannel;
import io.streamhouse.connect.testing.Mutations;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Whoever can write to the control topic cannot stop or corrupt the sink: while a connector with
 * two tasks drains its records, an attacker reads the connector's own control events and writes
 * back mutated copies (bit flips, cuts, overwritten length fields), random bytes, and exact replays
 * of older, correctly signed events. The connector stays RUNNING, every record lands exactly once,
 * and the tasks count what they refused.
 */
@ExtendWith(LocalStackExtension.class)
class HostileControlTopicE2E {
  private static final int RECORDS = Integer.getInteger("streamhouse.e2e.records", 200_000);
  private static final int MAX_INJECTED = 20_000;
  private static final int ENOUGH = 5_000;

  /**
   * A task's channel finds where the control topic ends (what it reads up to before it opens newly
   * assigned partitions) with the admin client, while its own consumer waits in a fetch of the
   * quiet topic: asked of that consumer, the request waited behind the fetch, which the broker
   * holds up to fetch.max.wait.ms.
   */
  @Test
  void aChannelFindsWhereTheControlTopicEndsWhileItsConsumerWaitsInAFetch(LocalStack stack)
      throws Exception {
    String topic = "ctl-ends";
    Map<String, Object> props = Map.of("bootstrap.servers", stack.bootstrapServers());
    ControlEventCodec codec =
        new ControlEventCodec(
            "ends", new ControlEventSigner("k".repeat(ControlEventSigner.MIN_KEY_CHARS)));
    try (Admin admin = Admin.create(props)) {
      KafkaControlChannel.ensureTopic(admin, topic);
      try (KafkaControlChannel writer =
              new KafkaControlChannel(
                  topic, "ends", codec, ControlEventRejections.silent(), "writer", props, admin);
          KafkaControlChannel reader =
              new KafkaControlChannel(
                  topic, "ends", codec, ControlEventRejections.silent(), "reader", props, admin)) {
        assertThat(reader.poll(Duration.ofMillis(300))).isEmpty(); // leaves a fetch waiting
        assertThat(reader.endOffsets()).isEqualTo(Map.of(0, 0L));
        assertThat(reader.readUpTo(reader.endOffsets())).isTrue();

        writer.send(
            List.of(
                new ControlEvent.StartCommit("ends", 1, 7),
                new ControlEvent.StartCommit("ends", 2, 7)));
        Map<Integer, Long> ends = reader.endOffsets();
        assertThat(ends).isEqualTo(Map.of(0, 2L));
        List<ControlEvent> read = new ArrayList<>();
        await()
            .atMost(Duration.ofMinutes(1))
            .until(
                () -> {
                  read.addAll(reader.poll(Duration.ofMillis(100)));
                  return reader.readUpTo(ends);
                });
        assertThat(read)
            .containsExactly(
                new ControlEvent.StartCommit("ends", 1, 7),
                new ControlEvent.StartCommit("ends", 2, 7));
      }
    }
  }

  @Test
  void mutatedCopiesOfItsOwnEventsRandomBytesAndReplaysNeitherStopNorCorruptTheSink(
      LocalStack stack) throws Exception {
    String topic = "hostile-orders";
    stack.createTopic(topic, 4, Map.of());
    ConnectorExample sink = IcebergSink.config(stack, "hostile", topic, Map.of("tasks.max", "2"));
    stack.connect().putConfig(sink.name(), sink.config());
    await().atMost(Duration.ofMinutes(1)).until(() -> stack.connect().isRunning(sink.name(), 2));

    Attacker attacker = new Attacker(stack.bootstrapServers(), sink.config().get("control.topic"));
    Thread thread = new Thread(attacker, "control-topic-attacker");
    thread.start();
    Set<Long> produced = new HashSet<>();
    try (JsonRecordProducer producer = stack.producer()) {
      for (SampleOrders.Order order : SampleOrders.generate(RECORDS)) {
        producer.sendWithSchema(topic, null, order.key(), SampleOrders.SCHEMA, order.payload());
        produced.add((Long) order.payload().get("id"));
      }
      producer.flush();
    }
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      await()
          .atMost(Duration.ofMinutes(5))
          .pollInterval(Duration.ofSeconds(1))
          .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, sink.name()))
          .failFast("the attacker failed", () -> attacker.failure != null)
          .until(() -> IcebergSink.committedRecords(tables, topic, sink.name()) >= RECORDS);
      await()
          .atMost(Duration.ofMinutes(3))
          .failFast("the attacker failed", () -> attacker.failure != null)
          .until(() -> attacker.injected.get() >= ENOUGH);
      // After the flood, the connector still commits what comes.
      try (JsonRecordProducer producer = stack.producer()) {
        for (SampleOrders.Order order : SampleOrders.generate(RECORDS, 1_000)) {
          producer.sendWithSchema(topic, null, order.key(), SampleOrders.SCHEMA, order.payload());
          produced.add((Long) order.payload().get("id"));
        }
        producer.flush();
      }
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, sink.name()))
          .until(
              () ->
                  tables.watermarks(IcebergSink.tableOf(topic), sink.name()).values().stream()
                          .mapToLong(Long::longValue)
                          .sum()
                      >= RECORDS + 1_000);
      attacker.stop.set(true);
      thread.join(Duration.ofSeconds(30).toMillis());
      System.out.printf(
          "attacker wrote %,d events (%,d exact replays) into the control topic%n",
          attacker.injected.get(), attacker.replayed.get());

      assertThat(stack.connect().isRunning(sink.name(), 2))
          .as("connector and both tasks RUNNING")
          .isTrue();
      IcebergSink.assertExactlyOnce(stack, tables, sink.name(), topic, produced);
      try (WorkerJmx jmx = new WorkerJmx(stack.worker().process().pid())) {
        Map<String, Double> rejected =
            jmx.values(
                "kafka.connect:type=plugins,connector=" + sink.name() + ",task=*",
                "task",
                "control-events-rejected-total");
        assertThat(rejected).containsOnlyKeys("0", "1");
        assertThat(rejected.values()).allSatisfy(n -> assertThat(n).isPositive());
      }
      String log = java.nio.file.Files.readString(stack.worker().logFile());
      assertThat(log)
          .contains("Refused the control event at " + sink.config().get("control.topic"));
      // The key the connector made reached its tasks through their configs, and never the log.
      String key =
          stack
              .connect()
              .tasks(sink.name())
              .get(0)
              .path("config")
              .path("control.signing-key")
              .asText();
      assertThat(key).hasSizeGreaterThanOrEqualTo(40);
      assertThat(
              stack
                  .connect()
                  .tasks(sink.name())
                  .get(1)
                  .path("config")
                  .path("control.signing-key")
                  .asText())
          .isEqualTo(key);
      assertThat(log).doesNotContain(key);
    }
    stack.connect().delete(sink.name());
  }

  /**
   * Reads the control topic and writes back hostile copies of what the connector wrote, up to a
   * bound.
   */
  private static final class Attacker implements Runnable {
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong injected = new AtomicLong();
    final AtomicLong replayed = new AtomicLong();
    volatile Throwable failure;
    private final String bootstrap;
    private final String topic;
    private final Mutations mutations = new Mutations(System.nanoTime());
    private final Deque<byte[]> originals = new ArrayDeque<>();
    private final Set<Long> ours = new HashSet<>();

    Attacker(String bootstrap, String topic) {
      this.bootstrap = bootstrap;
      this.topic = topic;
    }

    @Override
    public void run() {
      Map<String, Object> c =
          Map.of(
              ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
              bootstrap,
              ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
              "false");
      Map<String, Object> p =
          Map.of(
              ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
              bootstrap,
              ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
              "4194304",
              ProducerConfig.LINGER_MS_CONFIG,
              "5");
      try (KafkaConsumer<byte[], byte[]> consumer =
              new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
          KafkaProducer<byte[], byte[]> producer =
              new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
        TopicPartition control = new TopicPartition(topic, 0);
        consumer.assign(List.of(control));
        consumer.seekToBeginning(List.of(control));
        while (!stop.get()) {
          for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
            if (!ours.remove(record.offset())) {
              originals.addLast(record.value()); // the connector's own event
              if (originals.size() > 200) {
                originals.pollFirst();
              }
            }
          }
          if (originals.isEmpty() || injected.get() >= MAX_INJECTED) {
            continue;
          }
          // A burst of hostile copies of what the connector wrote lately, however fast it drains.
          List<byte[]> pool = new ArrayList<>(originals);
          List<Future<RecordMetadata>> sends = new ArrayList<>();
          for (int i = 0; i < 100; i++) {
            byte[] value;
            int kind = mutations.nextInt(20);
            if (kind == 0) {
              value = mutations.randomBytes(1 + mutations.nextInt(512));
            } else if (kind == 1) {
              value = pool.get(mutations.nextInt(pool.size())); // an exact replay of a signed event
              replayed.incrementAndGet();
            } else {
              value = mutations.mutate(pool.get(mutations.nextInt(pool.size())));
            }
            sends.add(producer.send(new ProducerRecord<>(topic, value)));
          }
          producer.flush();
          for (Future<RecordMetadata> send : sends) {
            ours.add(send.get().offset());
            injected.incrementAndGet();
          }
        }
      } catch (Throwable t) {
        failure = t;
        t.printStackTrace();
      }
    }
  }
}
