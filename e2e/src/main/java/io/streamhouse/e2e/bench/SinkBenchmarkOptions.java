package io.streamhouse.e2e.bench;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The command line of {@link SinkBenchmark}: {@code --name value} pairs, and the flags {@code
 * --skip-apache} and {@code --skip-ceiling}.
 *
 * @param runDir this run's folder, {@code run-<millis>} under {@code --run-dir}
 * @param ourPlugin {@code --streamhouse-plugin}: the unpacked plugin of our sink
 * @param valueConverter {@code --value-converter}: the converter of the sinks {@code
 *     valueConverterFor} names
 * @param kafkaMetadata {@code --kafka-metadata}: our route's Kafka metadata fields; empty for none
 * @param warmUpRecords {@code --warm-up-records}: before each drain, the same sink drains this many
 *     records of the backlog into another table in the same worker JVM (0: a cold worker)
 * @param initialRebalanceDelayMs {@code --initial-rebalance-delay-ms}: the broker's {@code
 *     group.initial.rebalance.delay.ms}; 0 as in the e2e harness unless given (the broker's own
 *     default is 3000: tasks that start together then join their group's first generation together)
 * @param brokerWarmUp {@code --broker-warm-up} (default true): before the measured drains the
 *     do-nothing sink drains the backlog once, unmeasured, so that the first sink measured does not
 *     pay for compiling the broker's fetch path and reading the topic's segments from disk
 */
record SinkBenchmarkOptions(
    Path root,
    Path runDir,
    int records,
    int partitions,
    String mavenCmd,
    String commitIntervalMs,
    String workerVersion,
    Path ourPlugin,
    String valueConverter,
    Set<String> valueConverterFor,
    String kafkaMetadata,
    boolean withApache,
    boolean withCeiling,
    int repeat,
    int warmUpRecords,
    String initialRebalanceDelayMs,
    boolean brokerWarmUp) {

  /** The Kafka worker the Apache Iceberg sink 1.12.0 runs on: it does not start on 4.4. */
  static final String APACHE_WORKER = "4.3.1";

  /** Connect's converter of the records, the default of every run. */
  static final String JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter";

  static SinkBenchmarkOptions parse(String[] args) {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--skip-apache") || args[i].equals("--skip-ceiling")) {
        o.put(args[i].substring(2), "true");
      } else {
        o.put(args[i].substring(2), args[++i]);
      }
    }
    Path root = Path.of(o.getOrDefault("repo-root", ".")).toAbsolutePath().normalize();
    return new SinkBenchmarkOptions(
        root,
        Path.of(o.getOrDefault("run-dir", root.resolve("e2e/target/bench").toString()))
            .resolve("run-" + System.currentTimeMillis()),
        Integer.parseInt(o.getOrDefault("records", "1000000")),
        Integer.parseInt(o.getOrDefault("partitions", "4")),
        o.getOrDefault("maven-cmd", root.resolve("mvnw").toString()),
        o.getOrDefault("commit-interval-ms", "2000"),
        o.getOrDefault("worker-version", APACHE_WORKER),
        Path.of(
            o.getOrDefault(
                "streamhouse-plugin",
                root.resolve("connector/target/plugin-path/streamhouse-connect").toString())),
        o.getOrDefault("value-converter", JSON_CONVERTER),
        Set.of(o.getOrDefault("value-converter-for", "streamhouse").split(",")),
        o.getOrDefault("kafka-metadata", ""),
        !o.containsKey("skip-apache"),
        !o.containsKey("skip-ceiling"),
        Integer.parseInt(o.getOrDefault("repeat", "1")),
        Integer.parseInt(o.getOrDefault("warm-up-records", "0")),
        String.valueOf(Integer.parseInt(o.getOrDefault("initial-rebalance-delay-ms", "0"))),
        Boolean.parseBoolean(o.getOrDefault("broker-warm-up", "true")));
  }
}
