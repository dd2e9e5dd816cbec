package io.streamhouse.e2e.bench;

import static io.streamhouse.e2e.bench.SinkBenchmarkOptions.APACHE_WORKER;
import static io.streamhouse.e2e.bench.SinkBenchmarkOptions.JSON_CONVERTER;

import io.streamhouse.e2e.JsonRecordProducer;
import io.streamhouse.e2e.LocalStack;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Drains a backlog of JSON records ({@link BenchRecords}: Connect JsonConverter with schemas, 11
 * leaf columns, one table) with our sink (1 and 2 tasks), a do-nothing sink (the ceiling) and the
 * Apache Iceberg sink 1.12.0 (on a 4.3 worker: it does not start on 4.4), each in a fresh worker
 * JVM, and prints records/s, MB/s, peak worker memory and commit latency.
 *
 * <pre>
 * e2e/benchmark.sh [--records 1000000] [--partitions 4] [--commit-interval-ms 2000] [--repeat 1]
 *     [--worker-version 4.3.1] [--skip-apache] [--skip-ceiling]
 *     [--kafka-metadata topic,partition,offset,timestamp,key,headers]
 *     [--value-converter CLASS] [--value-converter-for streamhouse,apache,do-nothing]
 * </pre>
 *
 * <p>{@code --kafka-metadata LIST} turns on our sink's Kafka metadata column ({@code
 * route.bench.kafka-metadata}); with {@code headers} in it every record gets two small headers (for
 * every sink, so that all drain the same topic).
 *
 * <p>Our sink runs on the Kafka worker {@code --worker-version}, by default the Apache sink's
 * 4.3.1, so that both sinks and the do-nothing sink drain the same topic on the same worker; with
 * another version each worker version gets its own broker, backlog and do-nothing runs.
 *
 * <p>{@code --value-converter CLASS} (for example {@code
 * io.streamhouse.connect.converter.FastJsonConverter}) replaces Connect's {@code JsonConverter}
 * (with {@code schemas.enable=true}) in the runs of the sinks {@code --value-converter-for} names,
 * by default ours only; those runs are labelled with the converter's simple name.
 *
 * <p>With {@code --repeat N} every configuration drains N times, the sinks taking turns, and the
 * comparison is made between the medians.
 *
 * <p>A run ends when the last record is durable: in the table for the table sinks (the snapshot
 * watermarks or record count), in the committed consumer offsets for the do-nothing sink. Both
 * table sinks use the same commit interval, the only setting they get that a user would not write.
 */
public final class SinkBenchmark {
  /** The routing field's value of every record: one table. */
  private static final String TABLE_FIELD_VALUE = "bench.orders";

  /** The topic the backlog is produced to and every sink drains. */
  static final String TOPIC = "bench";

  private final SinkBenchmarkOptions options;
  private final SinkConfigs configs;
  private final SinkDrains drains;
  private long payloadBytes;

  private SinkBenchmark(SinkBenchmarkOptions options) {
    this.options = options;
    this.configs = new SinkConfigs(options);
    this.drains =
        new SinkDrains(
            options.runDir(), options.records(), options.partitions(), options.warmUpRecords());
  }

  public static void main(String[] args) throws Exception {
    new SinkBenchmark(SinkBenchmarkOptions.parse(args)).run();
  }

  private void run() throws Exception {
    boolean withApache = options.withApache();
    int repeat = options.repeat();
    // One stack (broker and worker) per worker version: with ours on the Apache sink's version (the
    // default) both sinks and the do-nothing sink drain the same topic on the same worker.
    Map<String, List<String>> sinksByWorker = new LinkedHashMap<>();
    sinksByWorker
        .computeIfAbsent(options.workerVersion(), v -> new ArrayList<>())
        .add("streamhouse");
    if (withApache) {
      sinksByWorker.computeIfAbsent(APACHE_WORKER, v -> new ArrayList<>()).add("apache");
    }
    printSettings(withApache);
    Map<String, LocalStack> stacks = new LinkedHashMap<>();
    try {
      for (Map.Entry<String, List<String>> worker : sinksByWorker.entrySet()) {
        Path plugins = options.runDir().resolve("plugins-" + worker.getKey());
        BenchPlugins.discardSink(plugins);
        // Our plugin also brings the converter, which the other sinks may be given.
        if (worker.getValue().contains("streamhouse")
            || !options.valueConverter().equals(JSON_CONVERTER)) {
          BenchPlugins.streamhouse(plugins, options.ourPlugin());
        }
        if (worker.getValue().contains("apache")) {
          BenchPlugins.apacheIcebergSink(
              plugins,
              options.root().resolve("e2e/target/e2e-work/kafka-dists"),
              options.mavenCmd());
        }
        LocalStack stack = stack(worker.getKey(), plugins);
        stacks.put(worker.getKey(), stack);
        produce(stack);
      }
      for (LocalStack s : stacks.values()) {
        s.worker().close(); // each drain starts a fresh worker JVM and stops it after
      }
      if (options.brokerWarmUp()) {
        // A fresh broker compiles its fetch path, and reads the topic's segments from disk, in the
        // first drains it serves: without this the first sink measured pays for it (in turn 1 of
        // 2026-12-04 19:37-19:51 our drains took 13.7-17.6 s, in turn 2 11.3-12.5 s).
        for (LocalStack s : stacks.values()) {
          drains.warmUpBroker(s, configs.discard(2));
        }
      }
      // Sinks take turns, so that a slower stretch of the shared machine does not fall on one of
      // them.
      for (int round = 1; round <= repeat; round++) {
        for (int tasks = 1; tasks <= 2; tasks++) {
          for (Map.Entry<String, List<String>> worker : sinksByWorker.entrySet()) {
            LocalStack stack = stacks.get(worker.getKey());
            if (options.withCeiling()) {
              drains.drain(
                  stack,
                  configs.label("do-nothing sink", "do-nothing"),
                  "discard",
                  tasks,
                  configs.discard(tasks),
                  payloadBytes);
            }
            if (worker.getValue().contains("streamhouse")) {
              drains.drain(
                  stack,
                  configs.ours(),
                  "iceberg",
                  tasks,
                  configs.streamhouse(stack, tasks),
                  payloadBytes);
            }
            if (worker.getValue().contains("apache")) {
              drains.drain(
                  stack,
                  configs.label("Apache Iceberg sink 1.12.0", "apache"),
                  "apache",
                  tasks,
                  configs.apache(tasks),
                  payloadBytes);
            }
          }
        }
      }
    } finally {
      stacks.values().forEach(LocalStack::close);
    }
    List<Map<String, String>> results = drains.results();
    List<CostOverCeiling.Run> runs = drains.runs();
    List<CostOverCeiling.Run> medians = RepeatedRuns.medians(runs);
    for (int i = 0; i < results.size(); i++) {
      results.get(i).putAll(CostOverCeiling.columns(runs.get(i), medians));
    }
    MarkdownTable.print(results);
    if (repeat > 1) {
      List<Map<String, String>> summary = new ArrayList<>();
      for (CostOverCeiling.Run median : medians) {
        Map<String, String> row = RepeatedRuns.row(median, runs, options.records());
        row.putAll(CostOverCeiling.columns(median, medians));
        summary.add(row);
      }
      System.out.println();
      System.out.println("Medians of " + repeat + " runs each:");
      MarkdownTable.print(summary);
    }
    System.out.println();
    RepeatedRuns.throughputRatios(configs.ours(), runs).forEach(System.out::println);
    CostOverCeiling.comparison(configs.ours(), medians).forEach(System.out::println);
  }

  private LocalStack stack(String version, Path plugins) {
    return LocalStack.settings()
        .kafkaVersion(version)
        .runDir(options.runDir().resolve("kafka-" + version))
        .pluginPath(plugins)
        .distributionCache(options.root().resolve("e2e/target/e2e-work/kafka-dists"))
        .mavenCmd(options.mavenCmd())
        .workerJvmFlags(BenchWorkers.workerFlags("2g"))
        .brokerConfig("group.initial.rebalance.delay.ms", options.initialRebalanceDelayMs())
        .start();
  }

  /** What the runs are given beyond the defaults, and where each sink runs. */
  private void printSettings(boolean withApache) {
    String workerVersion = options.workerVersion();
    String commitIntervalMs = options.commitIntervalMs();
    String kafkaMetadata = options.kafkaMetadata();
    String valueConverter = options.valueConverter();
    System.out.printf(
        "Workers: streamhouse on Kafka %s%s%n",
        workerVersion,
        withApache
            ? ", Apache Iceberg sink 1.12.0 on Kafka "
                + APACHE_WORKER
                + (workerVersion.equals(APACHE_WORKER) ? " (the same worker version)" : "")
            : "");
    System.out.printf(
        "non-default: commit.interval.ms=%s%s%s%n",
        commitIntervalMs,
        kafkaMetadata.isBlank()
            ? ""
            : ", route.bench.kafka-metadata="
                + kafkaMetadata
                + (kafkaMetadata.contains("headers")
                    ? " (every record with 2 headers, for every sink)"
                    : ""),
        withApache
            ? " (the Apache sink: iceberg.control.commit.interval-ms="
                + commitIntervalMs
                + ", iceberg.kafka.auto.offset.reset=earliest)"
            : "");
    System.out.printf(
        "value.converter: %s (schemas.enable=true)%s%n",
        valueConverter,
        valueConverter.equals(JSON_CONVERTER)
            ? ""
            : " for " + options.valueConverterFor() + ", " + JSON_CONVERTER + " for the others");
    System.out.printf(
        "broker: group.initial.rebalance.delay.ms=%s (the broker's default is 3000)%s%n",
        options.initialRebalanceDelayMs(),
        options.brokerWarmUp()
            ? "; it serves a drain of the do-nothing sink before the measured ones"
            : "; no drain before the measured ones (--broker-warm-up false)");
    if (options.warmUpRecords() > 0) {
      System.out.printf(
          "warm worker: before each drain the same sink, with the same tasks, drains the first %,d"
              + " records into another table in the same worker JVM, then is deleted%n",
          options.warmUpRecords());
    }
  }

  /** The backlog: {@link BenchRecords} of one table, {@code records} of them. */
  private void produce(LocalStack stack) {
    int records = options.records();
    stack.createTopic(TOPIC, options.partitions(), Map.of());
    BenchRecords source = new BenchRecords();
    long start = System.nanoTime();
    try (JsonRecordProducer producer = stack.producer()) {
      for (long id = 0; id < records; id++) {
        String value = source.nextJson(id, TABLE_FIELD_VALUE);
        if (options.kafkaMetadata().contains("headers")) {
          producer.sendRaw(
              TOPIC,
              null,
              System.currentTimeMillis(),
              "order-" + id,
              value,
              List.of(Map.entry("trace-id", "t-" + id), Map.entry("source", "bench")));
        } else {
          producer.sendRaw(TOPIC, null, "order-" + id, value);
        }
      }
      producer.flush();
    }
    payloadBytes = source.payloadBytes();
    System.out.printf(
        "Produced %,d records on the Kafka %s broker (%.0f bytes of payload each, %.0f with the schema;"
            + " 11 leaf columns; %d partitions) in %.1f s%n",
        records,
        stack.kafkaVersion(),
        source.meanPayloadBytes(),
        source.meanRecordBytes(),
        options.partitions(),
        (System.nanoTime() - start) / 1e9);
  }
}
