package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.ConnectJson;
import io.streamhouse.e2e.IcebergTables;
import io.streamhouse.e2e.JsonRecordProducer;
import io.streamhouse.e2e.JsonText;
import io.streamhouse.e2e.LocalStack;
import io.streamhouse.e2e.PaimonTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Freshness benchmark: records produced at a steady rate into a 4-partition topic, our sink
 * committing every N ms into a Hadoop-catalog Iceberg table or a Paimon primary-key table, and a
 * reader on a thread of its own looking at the table at most every {@link #POLL_MS} ms. A record's
 * freshness is the moment the reader first saw it minus the moment it was sent. Prints p50, p99 and
 * max per format and commit interval, and how long the reader's looks took.
 */
public final class FreshnessBenchmark {
  private static final long POLL_MS = 50;
  private static final ConnectJson.StructSchema SCHEMA =
      ConnectJson.struct("bench.Event")
          .field("id", "int64", false)
          .field("sent_at", "int64", false)
          .field("note", "string", true);

  private final Path root;
  private final Path runDir;
  private final int rate;
  private final List<Map<String, String>> results = new ArrayList<>();

  private FreshnessBenchmark(Path root, Path runDir, int rate) {
    this.root = root;
    this.runDir = runDir;
    this.rate = rate;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      o.put(args[i].substring(2), args[i + 1]);
    }
    Path root = Path.of(o.getOrDefault("repo-root", ".")).toAbsolutePath().normalize();
    FreshnessBenchmark bench =
        new FreshnessBenchmark(
            root,
            Path.of(o.getOrDefault("run-dir", root.resolve("e2e/target/bench").toString()))
                .resolve("freshness-" + System.currentTimeMillis()),
            Integer.parseInt(o.getOrDefault("rate", "2000")));
    List<Long> intervals =
        Arrays.stream(o.getOrDefault("commit-intervals-ms", "60000,1000").split(","))
            .map(String::trim)
            .map(Long::parseLong)
            .toList();
    List<String> formats =
        Arrays.stream(o.getOrDefault("formats", "iceberg,paimon").split(","))
            .map(String::trim)
            .toList();
    long seconds = Long.parseLong(o.getOrDefault("seconds", "0"));
    bench.run(formats, intervals, seconds);
  }

  private void run(List<String> formats, List<Long> intervals, long seconds) throws Exception {
    Path plugins = runDir.resolve("plugins");
    BenchPlugins.streamhouse(
        plugins, root.resolve("connector/target/plugin-path/streamhouse-connect"));
    try (LocalStack stack =
        LocalStack.settings()
            .kafkaVersion("4.4.0")
            .runDir(runDir.resolve("kafka"))
            .pluginPath(plugins)
            .distributionCache(root.resolve("e2e/target/e2e-work/kafka-dists"))
            .mavenCmd(root.resolve("mvnw").toString())
            .workerJvmFlags(BenchWorkers.workerFlags("1g"))
            .start()) {
      for (String format : formats) {
        for (long interval : intervals) {
          // At least three commit rounds, at least a minute.
          measure(
              stack, format, interval, seconds > 0 ? seconds : Math.max(60, 3 * interval / 1000));
        }
      }
    }
    System.out.println();
    System.out.printf(
        "Freshness: %,d records/s sent into 4 partitions, reader polling every %d ms at most%n",
        rate, POLL_MS);
    MarkdownTable.print(results);
  }

  private void measure(LocalStack stack, String format, long intervalMs, long seconds)
      throws Exception {
    String name = "fresh-" + format + "-" + intervalMs;
    stack.createTopic(name, 4, Map.of());
    Path warehouse = Files.createDirectories(runDir.resolve("warehouse-" + name));
    stack.connect().putConfig(name, config(stack, format, name, warehouse, intervalMs));
    String table = "bench." + name.replace('-', '_');
    int total = (int) (rate * seconds);
    Reader reader =
        format.equals("paimon")
            ? new PaimonReader(warehouse, table, total)
            : new IcebergReader(warehouse, table, name);
    Thread polling = new Thread(() -> reader.pollUntilInterrupted(), "freshness-reader");
    polling.start();

    long[][] sentAt = new long[4][]; // partition -> send time by offset
    List<Future<RecordMetadata>> sends = new ArrayList<>(total);
    long[] sendTimes = new long[total];
    long start = System.currentTimeMillis();
    try (JsonRecordProducer producer = stack.producer()) {
      for (int i = 0; i < total; i++) {
        long wait = start + i * 1000L / rate - System.currentTimeMillis();
        if (wait > 0) {
          Thread.sleep(wait); // pacing the producer
        }
        sendTimes[i] = System.currentTimeMillis();
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("id", (long) i);
        payload.put("sent_at", sendTimes[i]);
        payload.put("note", "n" + i);
        sends.add(
            producer.sendRaw(
                name, null, "k" + i, JsonText.of(ConnectJson.envelope(SCHEMA, payload))));
      }
      producer.flush();
      int[] counts = new int[4];
      List<RecordMetadata> metadata = new ArrayList<>(total);
      for (Future<RecordMetadata> send : sends) {
        RecordMetadata m = send.get();
        metadata.add(m);
        counts[m.partition()] = Math.max(counts[m.partition()], (int) m.offset() + 1);
      }
      for (int p = 0; p < 4; p++) {
        sentAt[p] = new long[counts[p]];
      }
      for (int i = 0; i < total; i++) {
        RecordMetadata m = metadata.get(i);
        sentAt[m.partition()][(int) m.offset()] = sendTimes[i];
      }
    }
    long deadline =
        System.currentTimeMillis()
            + Duration.ofMillis(intervalMs).multipliedBy(3).toMillis()
            + 60_000;
    while (!reader.allVisible(sentAt) && System.currentTimeMillis() < deadline) {
      Thread.sleep(POLL_MS); // checking the reader's progress, not synchronization
    }
    polling.interrupt();
    polling.join();
    reader.close();
    stack.connect().delete(name);
    long[] latencies = reader.latencies(sentAt, sendTimes);
    Arrays.sort(latencies);
    Map<String, String> row = new LinkedHashMap<>();
    row.put("format", format);
    row.put("commit.interval.ms", Long.toString(intervalMs));
    row.put("records", String.format("%,d", total));
    row.put("visible", String.format("%,d", latencies.length));
    row.put("p50 s", seconds(percentile(latencies, 0.50)));
    row.put("p99 s", seconds(percentile(latencies, 0.99)));
    row.put("max s", seconds(latencies.length == 0 ? -1 : latencies[latencies.length - 1]));
    row.put("reader poll ms (mean/max)", reader.pollTimes());
    results.add(row);
    System.out.println(row);
  }

  /** A reader of the table on a thread of its own, noting when each record first became visible. */
  private abstract static class Reader implements AutoCloseable {
    private long polls;
    private long pollNanos;
    private long maxPollNanos;

    /** Looks at the table once; {@code now} is the moment the look started. */
    abstract void observe(long now);

    abstract boolean allVisible(long[][] sentAt);

    /**
     * For every record that became visible: the moment the reader first saw it minus its send time.
     */
    abstract long[] latencies(long[][] sentAt, long[] sendTimes);

    final void pollUntilInterrupted() {
      while (!Thread.currentThread().isInterrupted()) {
        long started = System.nanoTime();
        observe(System.currentTimeMillis());
        long took = System.nanoTime() - started;
        synchronized (this) {
          polls++;
          pollNanos += took;
          maxPollNanos = Math.max(maxPollNanos, took);
        }
        long rest = POLL_MS - took / 1_000_000;
        if (rest > 0) {
          try {
            Thread.sleep(rest); // the reader's polling interval, not synchronization
          } catch (InterruptedException stop) {
            return;
          }
        }
      }
    }

    @Override
    public void close() {}

    final synchronized String pollTimes() {
      return polls == 0
          ? "n/a"
          : String.format("%d/%d", pollNanos / polls / 1_000_000, maxPollNanos / 1_000_000);
    }
  }

  /**
   * Iceberg: a record is visible once the current snapshot's watermark of its partition passes its
   * offset.
   */
  private static final class IcebergReader extends Reader {
    private final HadoopTableProbe table;
    private final String connector;
    private final Map<String, Long> last = new HashMap<>();
    private final List<long[]> seen =
        new ArrayList<>(); // {time, partition, previous watermark, watermark}

    IcebergReader(Path warehouse, String table, String connector) {
      this.table = new HadoopTableProbe(warehouse.toUri().toString(), table);
      this.connector = connector;
    }

    @Override
    synchronized void observe(long now) {
      IcebergTables.watermarksOf(table.currentSummary(), connector)
          .forEach(
              (tp, mark) -> {
                Long before = last.put(tp, mark);
                if (before == null || before < mark) {
                  int p = Integer.parseInt(tp.substring(tp.lastIndexOf(':') + 1));
                  seen.add(new long[] {now, p, before == null ? 0 : before, mark});
                }
              });
    }

    @Override
    synchronized boolean allVisible(long[][] sentAt) {
      for (int p = 0; p < sentAt.length; p++) {
        if (last.getOrDefault(connector + ":" + p, 0L) < sentAt[p].length) {
          return false;
        }
      }
      return true;
    }

    @Override
    synchronized long[] latencies(long[][] sentAt, long[] sendTimes) {
      List<Long> out = new ArrayList<>();
      for (long[] s : seen) {
        long[] sent = sentAt[(int) s[1]];
        for (long offset = s[2]; offset < s[3] && offset < sent.length; offset++) {
          out.add(s[0] - sent[(int) offset]);
        }
      }
      return out.stream().mapToLong(Long::longValue).toArray();
    }
  }

  /**
   * Paimon: a record is visible once a batch read of the table (what a query engine sees: with
   * deletion vectors, only after the bucket's compaction) returns its id. Each poll reads the
   * table's {@code id} column in full.
   */
  private static final class PaimonReader extends Reader {
    private final PaimonTables tables;
    private final String table;
    private final long[] firstSeen;
    private int visible;

    PaimonReader(Path warehouse, String table, int total) {
      this.tables = PaimonTables.filesystem(warehouse);
      this.table = table;
      this.firstSeen = new long[total];
    }

    @Override
    void observe(long now) {
      if (!tables.exists(table)) {
        return;
      }
      List<Long> ids = tables.longs(table, "id");
      synchronized (this) {
        for (long id : ids) {
          if (id >= 0 && id < firstSeen.length && firstSeen[(int) id] == 0) {
            firstSeen[(int) id] = now;
            visible++;
          }
        }
      }
    }

    @Override
    synchronized boolean allVisible(long[][] sentAt) {
      return visible == firstSeen.length;
    }

    @Override
    public void close() {
      tables.close();
    }

    @Override
    synchronized long[] latencies(long[][] sentAt, long[] sendTimes) {
      List<Long> out = new ArrayList<>();
      for (int id = 0; id < firstSeen.length; id++) {
        if (firstSeen[id] != 0) {
          out.add(firstSeen[id] - sendTimes[id]);
        }
      }
      return out.stream().mapToLong(Long::longValue).toArray();
    }
  }

  private static long percentile(long[] sorted, double q) {
    return sorted.length == 0
        ? -1
        : sorted[(int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  }

  private static String seconds(long ms) {
    return ms < 0 ? "n/a" : String.format("%.2f", ms / 1000.0);
  }

  private static Map<String, String> config(
      LocalStack stack, String format, String name, Path warehouse, long intervalMs) {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", "io.streamhouse.connect.StreamhouseSinkConnector");
    c.put("topics", name);
    c.put("tasks.max", "2");
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("value.converter.schemas.enable", "true");
    c.put("kafka.bootstrap.servers", stack.bootstrapServers());
    c.put("catalogs", "bench");
    if (format.equals("paimon")) {
      c.put("catalog.bench.format", "paimon");
      c.put("catalog.bench.type", "filesystem");
      c.put("catalog.bench.warehouse", warehouse.toString());
      c.put("route.r.input", "upsert");
      c.put("route.r.primary-key", "id");
    } else {
      c.put("catalog.bench.type", "hadoop");
      c.put("catalog.bench.warehouse", warehouse.toUri().toString());
    }
    c.put("routes", "r");
    c.put("route.r.topics", name);
    c.put("route.r.namespace", "bench");
    c.put("route.r.auto-create", "true");
    c.put("commit.interval.ms", Long.toString(intervalMs));
    c.put("control.topic", "ctl-" + name);
    return c;
  }
}
