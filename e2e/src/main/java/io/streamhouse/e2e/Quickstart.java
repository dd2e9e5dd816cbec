package io.streamhouse.e2e;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;

/**
 * The quickstart: a local broker + Connect worker with the plugin, the example connector from
 * {@code config-examples/quickstart.json}, sample data, and a report of what happened. Runs in the
 * foreground until Ctrl-C; {@code down} stops a stack whose launcher was killed (pidfile).
 *
 * <pre>
 * Quickstart up   --repo-root DIR --run-dir DIR [--kafka-version 4.4.0] [--records 1000]
 * Quickstart down --run-dir DIR
 * </pre>
 */
public final class Quickstart {
  static final String READY_LINE = "Quickstart is running.";
  private static final PrintStream OUT = System.out;
  private static final int PARTITIONS = 3;

  private Quickstart() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = options(args);
    String command = args.length == 0 ? "up" : args[0];
    Path runDir = Path.of(options.getOrDefault("run-dir", ".run/quickstart")).toAbsolutePath();
    Pidfile pidfile = new Pidfile(runDir.resolve("stack.pids"), runDir);
    switch (command) {
      case "up" -> up(options, runDir, pidfile);
      case "down" -> {
        int stopped = pidfile.stopAll(Duration.ofSeconds(30));
        OUT.println(
            stopped == 0
                ? "No quickstart stack is running in " + runDir
                : "Stopped " + stopped + " quickstart process(es) in " + runDir);
      }
      default -> throw new IllegalArgumentException("Unknown command " + command + " (up | down)");
    }
  }

  private static void up(Map<String, String> options, Path runDir, Pidfile pidfile)
      throws Exception {
    if (pidfile.anyAlive()) {
      throw new IllegalStateException(
          "A quickstart stack is already running from "
              + runDir
              + " (pids "
              + pidfile.read().values()
              + "). Stop it with ./quickstart.sh --down");
    }
    Path root = Path.of(options.getOrDefault("repo-root", ".")).toAbsolutePath().normalize();
    String version = options.getOrDefault("kafka-version", LocalStack.DEFAULT_KAFKA_VERSION);
    int records = Integer.parseInt(options.getOrDefault("records", "1000"));
    Path stackDir = runDir.resolve("stack-" + Instant.now().toEpochMilli());
    OUT.printf(
        "Starting Kafka %s (KRaft broker) and a Connect worker in %s ...%n", version, stackDir);
    long t0 = System.nanoTime();
    LocalStack stack =
        LocalStack.settings()
            .kafkaVersion(version)
            .runDir(stackDir)
            .pluginPath(root.resolve("connector/target/plugin-path"))
            .distributionCache(runDir.getParent().resolve("kafka-dists"))
            .mavenCmd(root.resolve("mvnw").toString())
            .start();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  OUT.println("\nStopping the quickstart stack ...");
                  stack.close();
                  pidfile.delete();
                  OUT.println("Stopped.");
                  stopped.countDown();
                },
                "quickstart-stop"));
    Map<String, Long> pids = new LinkedHashMap<>();
    pids.put("launcher", ProcessHandle.current().pid());
    pids.putAll(stack.pids());
    pidfile.write(pids);
    OUT.printf(
        "Stack ready in %.1f s: broker %s, Connect REST %s%n",
        (System.nanoTime() - t0) / 1e9, stack.bootstrapServers(), stack.connect().baseUrl());

    Path warehouse = stackDir.resolve("warehouse");
    Files.createDirectories(warehouse);
    ConnectorExample example =
        ConnectorExample.load(
            root.resolve("config-examples/quickstart.json"),
            Map.of(
                "KAFKA_BOOTSTRAP_SERVERS",
                stack.bootstrapServers(),
                "WAREHOUSE",
                warehouse.toString()));
    runExample(stack, example, records, warehouse);
    OUT.println();
    ConnectorExample cdc =
        ConnectorExample.load(
            root.resolve("config-examples/paimon-cdc.json"),
            Map.of(
                "KAFKA_BOOTSTRAP_SERVERS",
                stack.bootstrapServers(),
                "WAREHOUSE",
                warehouse.toString()));
    runCdcExample(stack, cdc, records, warehouse);
    OUT.println();
    OUT.println(
        READY_LINE + " Press Ctrl-C to stop (or run ./quickstart.sh --down from another shell).");
    OUT.println(
        "Logs: " + stack.worker().logFile() + " and " + stackDir.resolve("broker/broker.log"));
    OUT.flush();
    stopped.await();
  }

  private static void runExample(
      LocalStack stack, ConnectorExample example, int records, Path warehouse) {
    String topic = example.config().get("topics").split(",")[0].trim();
    ConnectRestClient rest = stack.connect();
    int tasks = start(stack, example, topic);
    OUT.printf(
        "Connector %s is RUNNING with %d task(s) (plugin %s)%n",
        example.name(), tasks, pluginVersion(rest));

    try (JsonRecordProducer producer = stack.producer()) {
      for (SampleOrders.Order order : SampleOrders.generate(records)) {
        producer.sendWithSchema(topic, null, order.key(), SampleOrders.SCHEMA, order.payload());
      }
      producer.flush();
    }
    OUT.printf(
        "Produced %d sample orders to topic %s (%d partitions)%n", records, topic, PARTITIONS);

    String table = "sales." + topic;
    try (IcebergTables tables =
        IcebergTables.jdbc(
            "local", example.config().get("catalog.local.uri"), warehouse.resolve("iceberg"))) {
      Wait.until(
          "every record in table " + table,
          Duration.ofSeconds(120),
          Duration.ofMillis(500),
          () -> rest.requireNotFailed(example.name()),
          () ->
              tables.exists(table)
                  && tables.watermarks(table, example.name()).values().stream()
                          .mapToLong(Long::longValue)
                          .sum()
                      >= records);
      List<Map<String, Object>> rows = tables.rows(table);
      OUT.printf(
          "Iceberg table %s (catalog: %s) holds %d rows. A few of them:%n",
          table, example.config().get("catalog.local.uri"), rows.size());
      rows.stream()
          .sorted(java.util.Comparator.comparing(r -> (Long) r.get("id")))
          .limit(3)
          .forEach(r -> OUT.println("  " + new java.util.TreeMap<>(r)));
      Map<String, String> summary = tables.lastSummary(table);
      OUT.println("Last snapshot: " + tables.table(table).currentSnapshot().snapshotId());
      summary.forEach(
          (k, v) -> {
            if (k.startsWith("streamhouse.")
                || k.equals("added-records")
                || k.equals("total-records")) {
              OUT.printf("  %s = %s%n", k, v);
            }
          });
    }
    try (Admin admin = stack.admin()) {
      Map<TopicPartition, Long> ends = SinkProgress.endOffsets(admin, topic);
      OUT.println("Log end offsets of " + topic + ": " + ends.values());
    }
    OUT.printf(
        "The sink tasks received %d records.%n",
        SinkProgress.reportedReceived(stack.worker().logFile(), example.name()));
  }

  /**
   * Debezium changes of a customers table into a Paimon primary-key table, shown next to the
   * source.
   */
  private static void runCdcExample(
      LocalStack stack, ConnectorExample example, int changes, Path warehouse) {
    String topic = example.config().get("topics").split(",")[0].trim();
    ConnectRestClient rest = stack.connect();
    start(stack, example, topic);
    SampleCustomers source = new SampleCustomers(1, Math.max(1, changes / 5), 0.1);
    try (JsonRecordProducer producer = stack.producer()) {
      for (int i = 0; i < changes; i++) {
        SampleCustomers.Change change = source.next();
        String key = SampleCustomers.key(change.id());
        String value = SampleCustomers.debeziumValue(change);
        if (value != null) {
          producer.sendRaw(topic, null, key, value);
        }
        if (change.isDelete() && value != null) {
          producer.sendTombstone(topic, null, key);
        }
      }
      producer.flush();
    }
    OUT.printf(
        "Produced %d Debezium changes (inserts, updates, deletes) of %d customers to topic %s%n",
        changes, Math.max(1, changes / 5), topic);
    String table = example.config().get("route.customers.table");
    long end;
    try (Admin admin = stack.admin()) {
      end = sum(SinkProgress.endOffsets(admin, topic));
    }
    try (PaimonTables tables = PaimonTables.filesystem(warehouse.resolve("paimon"))) {
      Wait.until(
          "every change in table " + table,
          Duration.ofSeconds(120),
          Duration.ofMillis(500),
          () -> rest.requireNotFailed(example.name()),
          () ->
              tables.exists(table)
                  && tables.watermarks(table, example.name()).values().stream()
                          .mapToLong(Long::longValue)
                          .sum()
                      >= end
                  // deletion vectors: a commit's rows show once a task compacted their buckets, a
                  // second later
                  && tables.rows(table).size() == source.state().size());
      List<Map<String, Object>> rows = tables.rows(table);
      OUT.printf(
          "Paimon table %s (primary key id, deletion vectors) holds %d rows, the source table %d. "
              + "A few of them:%n",
          table, rows.size(), source.state().size());
      rows.stream()
          .sorted(java.util.Comparator.comparing(r -> (Long) r.get("id")))
          .limit(3)
          .forEach(r -> OUT.println("  " + new java.util.TreeMap<>(r)));
      tables
          .latestOwnSnapshot(table, example.name())
          .ifPresent(
              s -> {
                OUT.printf(
                    "Latest snapshot of the connector: %d (%s, identifier %d)%n",
                    s.id(), s.commitKind(), s.commitIdentifier());
                s.properties().forEach((k, v) -> OUT.printf("  %s = %s%n", k, v));
              });
    }
  }

  /**
   * Creates the example's topic, PUTs its config and waits until it runs; returns its task count.
   */
  private static int start(LocalStack stack, ConnectorExample example, String topic) {
    stack.createTopic(topic, PARTITIONS, Map.of());
    ConnectRestClient rest = stack.connect();
    rest.putConfig(example.name(), example.config());
    int tasks = Integer.parseInt(example.config().getOrDefault("tasks.max", "1"));
    Wait.until(
        "connector " + example.name() + " RUNNING",
        Duration.ofSeconds(60),
        Duration.ofMillis(250),
        () -> rest.requireNotFailed(example.name()),
        () -> rest.isRunning(example.name(), tasks));
    return tasks;
  }

  private static String pluginVersion(ConnectRestClient rest) {
    for (var plugin : rest.connectorPlugins()) {
      if (plugin.path("class").asText().equals("io.streamhouse.connect.StreamhouseSinkConnector")) {
        return plugin.path("version").asText();
      }
    }
    return "?";
  }

  private static long sum(Map<TopicPartition, Long> offsets) {
    return offsets.values().stream().mapToLong(Long::longValue).sum();
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 1; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("Expected --name value pairs, got " + args[i]);
      }
      options.put(args[i].substring(2), args[++i]);
    }
    return options;
  }

  /** The pidfile: one {@code name pid} line per process of the running quickstart. */
  static final class Pidfile {
    private final Path file;
    private final Path runDir;

    Pidfile(Path file, Path runDir) {
      this.file = file;
      this.runDir = runDir;
    }

    void write(Map<String, Long> pids) {
      List<String> lines = new ArrayList<>();
      pids.forEach((name, pid) -> lines.add(name + " " + pid));
      try {
        Files.createDirectories(file.getParent());
        Files.write(file, lines, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write " + file, e);
      }
    }

    Map<String, Long> read() {
      Map<String, Long> pids = new LinkedHashMap<>();
      if (!Files.exists(file)) {
        return pids;
      }
      try {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          String[] parts = line.trim().split("\\s+");
          if (parts.length == 2) {
            pids.put(parts[0], Long.parseLong(parts[1]));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read " + file, e);
      }
      return pids;
    }

    /** Live processes of this quickstart (a reused pid of another program does not count). */
    List<ProcessHandle> alive() {
      List<ProcessHandle> alive = new ArrayList<>();
      for (long pid : read().values()) {
        ProcessHandle.of(pid)
            .filter(h -> Processes.isRunning(h.pid()))
            .filter(this::belongsToUs)
            .ifPresent(alive::add);
      }
      return alive;
    }

    boolean anyAlive() {
      return !alive().isEmpty();
    }

    private boolean belongsToUs(ProcessHandle handle) {
      Optional<String> cmd = handle.info().commandLine();
      return cmd.isEmpty()
          || cmd.get().contains(runDir.toString())
          || cmd.get().contains("Quickstart");
    }

    /** Stops the launcher first (its shutdown hook stops the rest), then whatever survived. */
    int stopAll(Duration grace) {
      List<ProcessHandle> alive = alive();
      for (ProcessHandle handle : alive) {
        Processes.stopTree(handle, grace);
      }
      delete();
      return alive.size();
    }

    void delete() {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot delete " + file, e);
      }
    }
  }
}
