package io.streamhouse.e2e.bench;

import io.streamhouse.connect.TableFormats;
import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.commit.coordinator.CommitObserver;
import io.streamhouse.connect.commit.coordinator.Coordinator;
import io.streamhouse.connect.commit.task.CompactionRunner;
import io.streamhouse.connect.commit.task.Participant;
import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.routing.TableRouter;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableFormat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Development probe, not a published benchmark: one task's write path and the coordinator's commit
 * path in one JVM, without Kafka or Connect (records are built as Connect structs and put in
 * batches of 500, control events go through an in-memory bus). Prints each answer to a commit
 * request, the records/s until every record is committed, and the CPU seconds per thread, which
 * stay comparable on a busy machine. {@code --set.<key> <value>} sets any connector key.
 *
 * <pre>
 * java -cp ... io.streamhouse.e2e.bench.InProcessFanout --format paimon --tables 200 --records 300000
 * </pre>
 */
public final class InProcessFanout {
  static final Schema CUSTOMER =
      SchemaBuilder.struct()
          .name("bench.Customer")
          .field("name", Schema.STRING_SCHEMA)
          .field("city", Schema.STRING_SCHEMA)
          .build();
  static final Schema ROW =
      SchemaBuilder.struct()
          .name("bench.Order")
          .field("id", Schema.INT64_SCHEMA)
          .field("table", Schema.STRING_SCHEMA)
          .field("customer", CUSTOMER)
          .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
          .field("note", Schema.OPTIONAL_STRING_SCHEMA)
          .field("amount", Schema.FLOAT64_SCHEMA)
          .field("quantity", Schema.OPTIONAL_INT32_SCHEMA)
          .field("discount_pct", Schema.OPTIONAL_INT32_SCHEMA)
          .field("status", Schema.STRING_SCHEMA)
          .field("created_at", Timestamp.SCHEMA)
          .build();

  /** Broadcast bus: every endpoint sees every event. */
  static final class Bus {
    final List<LinkedBlockingQueue<ControlEvent>> queues = new CopyOnWriteArrayList<>();
    final AtomicLong bytes = new AtomicLong();

    ControlChannel endpoint() {
      LinkedBlockingQueue<ControlEvent> q = new LinkedBlockingQueue<>();
      queues.add(q);
      return new ControlChannel() {
        @Override
        public void send(List<? extends ControlEvent> events) {
          for (LinkedBlockingQueue<ControlEvent> each : queues) {
            each.addAll(events);
          }
        }

        @Override
        public List<ControlEvent> poll(Duration timeout) {
          List<ControlEvent> out = new ArrayList<>();
          try {
            ControlEvent first = q.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (first != null) {
              out.add(first);
              q.drainTo(out, 499);
            }
          } catch (InterruptedException e) {
            throw new org.apache.kafka.common.errors.WakeupException();
          }
          return out;
        }

        @Override
        public void wakeup() {}

        @Override
        public void close() {}
      };
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      o.put(args[i].substring(2), args[i + 1]);
    }
    String format = o.getOrDefault("format", "paimon");
    int tables = Integer.parseInt(o.getOrDefault("tables", "200"));
    int records = Integer.parseInt(o.getOrDefault("records", "300000"));
    Path dir = Files.createTempDirectory("fanout-probe");
    Map<String, String> c = new HashMap<>();
    c.put("name", "probe");
    c.put("connector.class", "io.streamhouse.connect.StreamhouseSinkConnector");
    c.put("task.id", "0");
    c.put("topics", "fan");
    c.put("kafka.bootstrap.servers", "localhost:1");
    c.put("catalogs", "bench");
    c.put("catalog.bench.warehouse", dir.resolve("wh").toString());
    if (format.equals("paimon")) {
      c.put("catalog.bench.format", "paimon");
      c.put("catalog.bench.type", "filesystem");
      c.put("route.r.input", "upsert");
      c.put("route.r.primary-key", "id");
    } else {
      c.put("catalog.bench.type", "jdbc");
      c.put("catalog.bench.uri", "jdbc:sqlite:" + dir.resolve("catalog.db"));
    }
    c.put("routes", "r");
    c.put("route.r.topics", "fan");
    c.put("route.r.table.field", "table");
    c.put("route.r.table.allow-regex", "fanout_t[0-9]+");
    c.put("route.r.namespace", "fanout");
    c.put("route.r.auto-create", "true");
    c.put("commit.interval.ms", o.getOrDefault("interval", "10000"));
    c.put("paimon.spill-dir", dir.resolve("spill").toString());
    o.forEach(
        (k, v) -> {
          if (k.startsWith("set.")) {
            c.put(k.substring(4), v);
          }
        });
    StreamhouseSinkConfig config = new StreamhouseSinkConfig(c);
    Map<String, TableFormat> formats = TableFormats.open(config, 0);
    Map<String, TableFormat> coordFormats = TableFormats.open(config, 0);
    Bus bus = new Bus();
    ControlChannel taskChannel = bus.endpoint();
    ControlChannel coordChannel = bus.endpoint();
    Participant participant =
        new Participant(
            "probe",
            0,
            formats,
            taskChannel,
            new FileBudget(config.maxOpenFiles(), config.icebergWriteBufferBytes()),
            FaultInjection.none(),
            0,
            config.commitTimeoutMs(),
            config.commitParallelism());
    Set<TopicPartition> tps = Set.of(new TopicPartition("fan", 0));
    participant.assigned(tps);
    CompactionRunner compactions = new CompactionRunner("probe", 0, formats, taskChannel);
    AtomicLong committedRecords = new AtomicLong();
    CommitObserver observer =
        new CommitObserver() {
          @Override
          public void committed(
              io.streamhouse.connect.protocol.TableId table,
              io.streamhouse.connect.protocol.CommitOutcome outcome,
              long bytes,
              long durationMs,
              int rejected) {
            committedRecords.addAndGet(outcome.records());
          }

          @Override
          public void failed(io.streamhouse.connect.protocol.TableId table) {}
        };
    Coordinator coordinator =
        new Coordinator(
            "probe",
            coordFormats,
            coordChannel,
            () -> tps,
            config.commitIntervalMs(),
            config.commitTimeoutMs(),
            config.commitParallelism(),
            Clock.systemUTC(),
            FaultInjection.none(),
            observer,
            List::of);
    Thread coord = new Thread(coordinator, "coordinator");
    coord.setDaemon(true);
    coord.start();
    Thread control =
        new Thread(
            () -> {
              while (true) {
                for (ControlEvent event : taskChannel.poll(Duration.ofMillis(200))) {
                  if (event instanceof ControlEvent.StartCommit start) {
                    long t0 = System.nanoTime();
                    participant.onStartCommit(start.commitId());
                    System.err.printf(
                        "PROBE answered %d in %d ms%n",
                        start.commitId(), (System.nanoTime() - t0) / 1_000_000);
                  } else if (event instanceof ControlEvent.CompactRequest request) {
                    compactions.submit(request);
                  } else if (event instanceof ControlEvent.TableCommitted committed) {
                    participant.onTableCommitted(committed);
                  }
                }
              }
            },
            "control");
    control.setDaemon(true);
    control.start();
    TableRouter router = new TableRouter(config.routes());
    Random random = new Random(42);
    String[] cities = {"Zürich", "São Paulo", "東京", "Kraków", "Reykjavík", "Lyon"};
    String[] vocab = {"gift", "express", "b2b", "promo", "fragile", "eco"};
    String[] statuses = {"NEW", "PAID", "SHIPPED", "CANCELLED"};
    long start = System.nanoTime();
    List<SinkRecord> batch = new ArrayList<>(500);
    for (long id = 0; id < records; id++) {
      Struct customer =
          new Struct(CUSTOMER)
              .put("name", "customer-" + random.nextInt(10_000))
              .put("city", cities[random.nextInt(cities.length)]);
      List<String> tags = new ArrayList<>();
      for (int i = random.nextInt(5); i > 0; i--) {
        tags.add(vocab[random.nextInt(vocab.length)]);
      }
      Struct value =
          new Struct(ROW)
              .put("id", id)
              .put("table", "fanout.t" + (id % tables))
              .put("customer", customer)
              .put("tags", tags)
              .put(
                  "note",
                  random.nextInt(10) == 0
                      ? null
                      : "Bestellung für " + customer.get("city") + " — 注文 ✓ " + id + " 🚚")
              .put("amount", random.nextDouble() * 1000)
              .put("quantity", random.nextInt(10) == 0 ? null : random.nextInt(100))
              .put("discount_pct", random.nextInt(10) < 7 ? null : random.nextInt(50))
              .put("status", statuses[random.nextInt(statuses.length)])
              .put("created_at", new java.util.Date(1_767_225_600_000L + id));
      batch.add(
          new SinkRecord(
              "fan",
              0,
              Schema.STRING_SCHEMA,
              "k" + id,
              ROW,
              value,
              id,
              1_767_225_600_000L + id,
              org.apache.kafka.common.record.TimestampType.CREATE_TIME));
      if (batch.size() == 500) {
        put(participant, router, batch, tps);
        batch.clear();
      }
    }
    put(participant, router, batch, tps);
    double writeSeconds = (System.nanoTime() - start) / 1e9;
    System.err.printf("PROBE wrote %d records in %.1f s%n", records, writeSeconds);
    while (committedRecords.get() < records) {
      Thread.sleep(200);
      if (System.nanoTime() - start > TimeUnit.MINUTES.toNanos(10)) {
        System.err.println("PROBE timed out at " + committedRecords.get());
        break;
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.err.printf(
        "PROBE %s %d tables: %d records committed in %.1f s = %.0f records/s%n",
        format, tables, committedRecords.get(), seconds, committedRecords.get() / seconds);
    printCpuByThread();
    System.exit(0);
  }

  /** CPU seconds per thread group (digits in names removed), robust to a busy machine. */
  private static void printCpuByThread() {
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    Map<String, Long> byGroup = new java.util.TreeMap<>();
    for (long id : mx.getAllThreadIds()) {
      java.lang.management.ThreadInfo info = mx.getThreadInfo(id);
      long cpu = mx.getThreadCpuTime(id);
      if (info != null && cpu > 0) {
        byGroup.merge(info.getThreadName().replaceAll("[0-9]+", "N"), cpu, Long::sum);
      }
    }
    byGroup.forEach((name, cpu) -> System.err.printf("PROBE cpu %-50s %7.1f s%n", name, cpu / 1e9));
  }

  private static void put(
      Participant participant, TableRouter router, List<SinkRecord> batch, Set<TopicPartition> tps)
      throws Exception {
    for (SinkRecord r : batch) {
      for (TableRouter.Destination to : router.route(r)) {
        participant.write(r, new TopicPartition("fan", 0), to);
      }
    }
  }
}
