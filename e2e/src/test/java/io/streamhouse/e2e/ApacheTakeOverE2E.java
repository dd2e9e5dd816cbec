package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamhouse.e2e.bench.BenchPlugins;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.connect.events.AvroUtil;
import org.apache.iceberg.connect.events.DataWritten;
import org.apache.iceberg.connect.events.Event;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Issue 17 item 3: the Apache Iceberg sink 1.12 (on a Kafka 4.3 worker: it does not load on 4.4)
 * writes a topic; its connector is switched to ours by changing connector.class while it has
 * reported files ({@code DataWritten}, source offsets committed) that it has not committed to the
 * table, and while its workers buffer records they have not reported; every record is in the table
 * exactly once, read back independently of both connectors.
 *
 * <p>The moment between {@code DataWritten} and the table commit is made to last: a plain consumer
 * of this test joins the connector's consumer group and holds one partition without ever answering
 * the Apache coordinator, which therefore waits for that partition's report until its commit
 * timeout (10 minutes) while the other partitions' files are reported and their offsets committed.
 */
class ApacheTakeOverE2E {
  private static final String NAME = "handover";
  private static final String TOPIC = "handover-orders";
  private static final String APACHE_CONTROL = "ctl-apache-handover";
  private static final String TABLE = "e2e.handover_orders";
  private static final int WAVE = 2000;

  @Test
  void switchingConnectorClassBetweenDataWrittenAndTheTableCommitKeepsEveryRecordOnce()
      throws Exception {
    Path runDir = E2eSettings.workDir().resolve("apache-handover-" + System.currentTimeMillis());
    String warehouseUri = warehouse(runDir);
    try (LocalStack stack = stack(runDir)) {
      stack.createTopic(TOPIC, 3, Map.of());
      stack.createTopic(APACHE_CONTROL, 1, Map.of());
      Set<Long> produced = new HashSet<>();
      long started = System.nanoTime();

      // 1. The Apache sink writes and commits a first wave.
      stack.connect().putConfig(NAME, apacheConfig(warehouseUri));
      produce(stack, produced, 0);
      try (IcebergTables tables = IcebergTables.hadoop("apache", warehouseUri)) {
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofSeconds(1))
            .until(() -> tables.exists(TABLE) && tables.rows(TABLE).size() == WAVE);
        int apacheSnapshots = snapshots(tables.table(TABLE)).size();
        log("Apache sink committed wave 1 (%d rows, %d snapshots)", WAVE, apacheSnapshots);

        // 2. A member that never answers holds partition 2: the next Apache round waits for it.
        AtomicBoolean holding = new AtomicBoolean(true);
        Thread blocker = new Thread(() -> holdOnePartition(stack, holding), "blocker");
        blocker.start();
        long controlEnd = controlEndOffset(stack);
        produce(stack, produced, 1);
        // Both Apache tasks hold a partition (0 and 1) and answer the round, each in its own
        // time: wait for both reports (seen on CI: the count taken after the first one only).
        List<DataWritten> reported =
            await()
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> dataWrittenSince(stack, controlEnd), list -> list.size() >= 2);
        long reportedRecords =
            reported.stream()
                .flatMap(d -> d.dataFiles().stream())
                .mapToLong(f -> f.recordCount())
                .sum();
        assertThat(tables.rows(TABLE)).as("reported, not committed").hasSize(WAVE);
        log(
            "Apache workers reported %d files (%d records) in %d DataWritten events; table"
                + " unchanged",
            reported.stream().mapToInt(d -> d.dataFiles().size()).sum(),
            reportedRecords,
            reported.size());
        assertThat(reportedRecords).isPositive();

        // 3. Records the Apache workers take in but never report.
        produce(stack, produced, 2);
        pause(Duration.ofMillis(1500)); // the Apache workers take them in

        // 4. Same name, our class: the take-over and then our own commits.
        holding.set(false);
        blocker.join();
        stack.connect().putConfig(NAME, ourConfig(stack, warehouseUri));
        log("connector.class switched");
        produce(stack, produced, 3);
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofSeconds(1))
            .failFast("connector failed", () -> failed(stack))
            .until(() -> tables.rows(TABLE).size() >= produced.size());
        // No late duplicate: the count holds for 3 s.
        await()
            .during(Duration.ofSeconds(3))
            .atMost(Duration.ofSeconds(10))
            .until(() -> tables.rows(TABLE).size() == produced.size());
        try (WorkerJmx jmx = new WorkerJmx(stack.worker().process().pid())) {
          String task0 = "kafka.connect:type=plugins,connector=" + NAME + ",task=0";
          assertThat(jmx.values(task0, "task", "apache-takeover-pending"))
              .as("the take-over finished")
              .containsEntry("0", 0.0);
          assertThat(jmx.values(task0, "task", "apache-takeover-events-rejected-total"))
              .as("the Apache sink's real events are all taken")
              .containsEntry("0", 0.0);
        }
        List<Long> ids = tables.rows(TABLE).stream().map(r -> (Long) r.get("id")).toList();
        assertThat(new HashSet<>(ids)).isEqualTo(produced);
        assertThat(ids).as("every record once").hasSize(produced.size());

        Table table = tables.table(TABLE);
        table.refresh();
        List<Snapshot> takeOver =
            snapshots(table).stream()
                .filter(s -> s.summary().containsKey("streamhouse." + NAME + ".apache-handover"))
                .toList();
        assertThat(takeOver).as("one take-over snapshot").hasSize(1);
        assertThat(Long.parseLong(takeOver.get(0).summary().get("added-records")))
            .isEqualTo(reportedRecords);
        Map<String, Long> end = new HashMap<>();
        try (Admin admin = stack.admin()) {
          SinkProgress.endOffsets(admin, TOPIC)
              .forEach((tp, o) -> end.put(tp.topic() + ":" + tp.partition(), o));
        }
        assertThat(tables.watermarks(TABLE, NAME)).isEqualTo(end);
        log(
            "%d records once in %s after the switch; take-over snapshot added %s records; %d s in"
                + " all",
            ids.size(),
            TABLE,
            takeOver.get(0).summary().get("added-records"),
            Duration.ofNanos(System.nanoTime() - started).toSeconds());
      }
      assertThat(Files.readString(stack.worker().logFile()))
          .contains("Take-over from the Apache sink")
          .doesNotContain("Refused event at");
    }
  }

  /**
   * The switch at a moment chosen at random (seed printed; {@code -Dstreamhouse.e2e.seed} repeats
   * it) while records flow all the time and the Apache sink commits every 3 s: whatever state its
   * round is in then, every record is in the table once.
   */
  @Test
  void switchingAtARandomMomentKeepsEveryRecordOnce() throws Exception {
    long seed = Long.getLong("streamhouse.e2e.seed", System.nanoTime());
    java.util.Random random = new java.util.Random(seed);
    long switchAfterMs = 4000 + random.nextInt(12_000);
    log("seed %d: switch %d ms after the Apache sink's first commit", seed, switchAfterMs);
    Path runDir = E2eSettings.workDir().resolve("apache-random-" + System.currentTimeMillis());
    String warehouseUri = warehouse(runDir);
    try (LocalStack stack = stack(runDir);
        IcebergTables tables = IcebergTables.hadoop("apache", warehouseUri)) {
      stack.createTopic(TOPIC, 3, Map.of());
      stack.createTopic(APACHE_CONTROL, 1, Map.of());
      Map<String, String> apache = apacheConfig(warehouseUri);
      apache.put("iceberg.control.commit.interval-ms", "3000");
      apache.put("iceberg.control.commit.timeout-ms", "30000");
      stack.connect().putConfig(NAME, apache);
      Set<Long> produced = java.util.concurrent.ConcurrentHashMap.newKeySet();
      AtomicBoolean flowing = new AtomicBoolean(true);
      Thread producer =
          new Thread(
              () -> {
                long next = 0;
                try (JsonRecordProducer p = stack.producer()) {
                  while (flowing.get()) {
                    for (SampleOrders.Order o : SampleOrders.generate(next, 100)) {
                      p.sendWithSchema(TOPIC, null, o.key(), SampleOrders.SCHEMA, o.payload());
                      produced.add((Long) o.payload().get("id"));
                    }
                    next += 100;
                    p.flush();
                    Thread.sleep(100); // pacing of the producer thread
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "producer");
      producer.start();
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> tables.exists(TABLE) && !tables.rows(TABLE).isEmpty());
      pause(Duration.ofMillis(switchAfterMs)); // the random moment
      stack.connect().putConfig(NAME, ourConfig(stack, warehouseUri));
      log("connector.class switched with %d records produced", produced.size());
      pause(Duration.ofSeconds(5)); // records keep flowing after the switch
      flowing.set(false);
      producer.join();
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofSeconds(1))
          .failFast("connector failed", () -> failed(stack))
          .until(() -> tables.rows(TABLE).size() >= produced.size());
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10))
          .until(() -> tables.rows(TABLE).size() == produced.size());
      List<Long> ids = tables.rows(TABLE).stream().map(r -> (Long) r.get("id")).toList();
      assertThat(new HashSet<>(ids)).isEqualTo(new HashSet<>(produced));
      assertThat(ids).as("every record once").hasSize(produced.size());
      Table table = tables.table(TABLE);
      List<Snapshot> takeOver =
          snapshots(table).stream()
              .filter(s -> s.summary().containsKey("streamhouse." + NAME + ".apache-handover"))
              .toList();
      assertThat(takeOver).hasSizeLessThanOrEqualTo(1);
      log(
          "seed %d: %d records once; the take-over committed %s records",
          seed,
          ids.size(),
          takeOver.isEmpty() ? "no" : takeOver.get(0).summary().get("added-records"));
    }
  }

  private static String warehouse(Path runDir) throws java.io.IOException {
    return Files.createDirectories(runDir.resolve("warehouse")).toUri().toString();
  }

  /** A Kafka 4.3 broker and worker with our plugin and the Apache sink's. */
  private static LocalStack stack(Path runDir) {
    Path plugins = runDir.resolve("plugins");
    BenchPlugins.streamhouse(plugins, E2eSettings.pluginPath().resolve("streamhouse-connect"));
    BenchPlugins.apacheIcebergSink(
        plugins, E2eSettings.workDir().resolve("kafka-dists"), E2eSettings.mavenCmd());
    return LocalStack.settings()
        .kafkaVersion("4.3.1")
        .runDir(runDir.resolve("kafka"))
        .pluginPath(plugins)
        .distributionCache(E2eSettings.workDir().resolve("kafka-dists"))
        .mavenCmd(E2eSettings.mavenCmd())
        .start();
  }

  private static void log(String format, Object... args) {
    System.out.printf("[ApacheTakeOverE2E] " + format + "%n", args);
  }

  private static boolean failed(LocalStack stack) {
    try {
      stack.connect().requireNotFailed(NAME);
      return false;
    } catch (RuntimeException e) {
      return true;
    }
  }

  private static List<Snapshot> snapshots(Table table) {
    List<Snapshot> all = new ArrayList<>();
    table.snapshots().forEach(all::add);
    return all;
  }

  /** Wave {@code n}: {@link #WAVE} orders spread over the topic's partitions by key. */
  private static void produce(LocalStack stack, Set<Long> produced, int n) {
    try (JsonRecordProducer producer = stack.producer()) {
      for (SampleOrders.Order o : SampleOrders.generate(n * 1_000_000L, WAVE)) {
        producer.sendWithSchema(TOPIC, null, o.key(), SampleOrders.SCHEMA, o.payload());
        produced.add((Long) o.payload().get("id"));
      }
      producer.flush();
    }
  }

  /**
   * A member of the connector's consumer group that polls (so it stays a member) and never commits.
   * Its client id sorts last, so the range assignor gives it the last partition and the Apache
   * coordinator stays with the task holding partition 0.
   */
  private static void holdOnePartition(LocalStack stack, AtomicBoolean holding) {
    Map<String, Object> props = new HashMap<>(stack.clientSecurity());
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "connect-" + NAME);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "zzz-blocker");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1);
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      consumer.subscribe(List.of(TOPIC));
      Set<TopicPartition> seen = new HashSet<>();
      while (holding.get()) {
        consumer.poll(Duration.ofMillis(200));
        if (!consumer.assignment().equals(seen)) {
          seen = new HashSet<>(consumer.assignment());
          log("blocker holds %s", seen);
        }
        // never process: stay where the group's committed offsets are
        consumer.assignment().forEach(tp -> consumer.seek(tp, committedOrZero(consumer, tp)));
      }
    }
  }

  private static long committedOrZero(KafkaConsumer<String, String> consumer, TopicPartition tp) {
    var committed = consumer.committed(Set.of(tp)).get(tp);
    return committed == null ? 0 : committed.offset();
  }

  private static KafkaConsumer<byte[], byte[]> controlReader(LocalStack stack) {
    Map<String, Object> props = new HashMap<>(stack.clientSecurity());
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return new KafkaConsumer<>(props);
  }

  private static long controlEndOffset(LocalStack stack) {
    try (KafkaConsumer<byte[], byte[]> c = controlReader(stack)) {
      TopicPartition tp = new TopicPartition(APACHE_CONTROL, 0);
      return c.endOffsets(List.of(tp)).get(tp);
    }
  }

  /** The Apache workers' reports with files on the control topic from {@code from} on. */
  private static List<DataWritten> dataWrittenSince(LocalStack stack, long from) {
    List<DataWritten> found = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = controlReader(stack)) {
      TopicPartition tp = new TopicPartition(APACHE_CONTROL, 0);
      c.assign(List.of(tp));
      c.seek(tp, from);
      long end = c.endOffsets(List.of(tp)).get(tp);
      while (c.position(tp) < end) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          Event event = AvroUtil.decode(r.value());
          if (event.payload() instanceof DataWritten d
              && d.dataFiles() != null
              && !d.dataFiles().isEmpty()) {
            found.add(d);
          }
        }
      }
    }
    return found;
  }

  /** Lets time pass (pacing of the scenario, not a wait for a condition). */
  private static void pause(Duration duration) {
    await().pollDelay(duration).atMost(duration.plusSeconds(5)).until(() -> true);
  }

  private static Map<String, String> base() {
    Map<String, String> c = new HashMap<>();
    c.put("topics", TOPIC);
    c.put("tasks.max", "2");
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("value.converter.schemas.enable", "true");
    return c;
  }

  private static Map<String, String> apacheConfig(String warehouse) {
    Map<String, String> c = base();
    c.put("connector.class", "org.apache.iceberg.connect.IcebergSinkConnector");
    c.put("iceberg.catalog.type", "hadoop");
    c.put("iceberg.catalog.warehouse", warehouse);
    c.put("iceberg.tables", TABLE);
    c.put("iceberg.tables.auto-create-enabled", "true");
    c.put("iceberg.control.topic", APACHE_CONTROL);
    c.put("iceberg.control.commit.interval-ms", "8000");
    c.put("iceberg.control.commit.timeout-ms", "600000");
    c.put("iceberg.kafka.auto.offset.reset", "earliest");
    return c;
  }

  /**
   * The Apache sink's config as it is, with our connector.class: the connector translates it (the
   * catalog, the table, the Kafka cluster from the worker's properties, the Apache control topic
   * for the take-over). Only the commit timing is ours, so that the test does not wait minutes.
   */
  private static Map<String, String> ourConfig(LocalStack stack, String warehouse) {
    Map<String, String> c = apacheConfig(warehouse);
    c.put("connector.class", "io.streamhouse.connect.StreamhouseSinkConnector");
    c.put("commit.interval.ms", "2000");
    c.put("commit.timeout.ms", "10000");
    return c;
  }
}
