package io.streamhouse.e2e;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A Kafka Connect distributed worker in a child JVM, loading plugins from {@code plugin.path}. */
public final class ConnectWorker implements AutoCloseable {
  static final List<String> DEFAULT_JVM_FLAGS =
      List.of("-Xmx1g", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private final KafkaDistribution kafka;
  private final Path dir;
  private final String name;
  private final int restPort;
  private final Map<String, String> props;
  private final List<String> jvmFlags;
  private ManagedProcess process;

  ConnectWorker(
      KafkaDistribution kafka,
      Path dir,
      String name,
      String bootstrapServers,
      Path pluginPath,
      Map<String, String> overrides,
      List<String> jvmFlags) {
    this.kafka = kafka;
    this.dir = dir;
    this.name = name;
    this.restPort = FreePorts.next();
    this.jvmFlags = jvmFlags;
    this.props = new LinkedHashMap<>();
    props.put("bootstrap.servers", bootstrapServers);
    props.put("group.id", "streamhouse-connect");
    props.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    props.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    props.put("config.storage.topic", "_connect-configs");
    props.put("offset.storage.topic", "_connect-offsets");
    props.put("status.storage.topic", "_connect-status");
    props.put("config.storage.replication.factor", "1");
    props.put("offset.storage.replication.factor", "1");
    props.put("status.storage.replication.factor", "1");
    props.put("offset.storage.partitions", "1");
    props.put("status.storage.partitions", "1");
    props.put("offset.flush.interval.ms", "1000");
    props.put("listeners", "http://127.0.0.1:" + restPort);
    props.put("rest.advertised.host.name", "127.0.0.1");
    props.put("rest.advertised.port", Integer.toString(restPort));
    props.put("plugin.path", pluginPath.toAbsolutePath().toString());
    props.put("plugin.discovery", "service_load");
    props.put("scheduled.rebalance.max.delay.ms", "0");
    props.put("connector.client.config.override.policy", "All");
    // A dead worker and its sink consumers leave their groups after 6 s (the broker's minimum),
    // not Connect's 10 s and the consumer's 45 s: each kill in a test waits for that.
    props.put("session.timeout.ms", "6000");
    props.put("heartbeat.interval.ms", "2000");
    props.put("consumer.session.timeout.ms", "6000");
    props.put("consumer.heartbeat.interval.ms", "2000");
    // A stopping task hands in its work (commit.handover-timeout.ms); tests that give it more time
    // than Connect's default 5 s must not have the worker abandon the task first.
    props.put("task.shutdown.graceful.timeout.ms", "30000");
    props.putAll(overrides);
  }

  public String name() {
    return name;
  }

  public String restUrl() {
    return "http://127.0.0.1:" + restPort;
  }

  void start() {
    Path properties = dir.resolve("connect-distributed.properties");
    PropertiesFile.write(properties, props);
    LogConfig.write(dir);
    List<String> flags = new ArrayList<>(jvmFlags);
    process =
        ManagedProcess.start(
            name,
            JavaCommand.of(
                kafka,
                dir,
                flags,
                "org.apache.kafka.connect.cli.ConnectDistributed",
                properties.toString()),
            dir,
            dir.resolve("connect.log"));
  }

  /**
   * Starts the worker again, with the same configuration and REST port, after it died or was
   * stopped.
   */
  public void restart(Duration readyTimeout) {
    if (process != null && !process.awaitExit(Duration.ofSeconds(60))) {
      throw new IllegalStateException(name + " is still running");
    }
    start();
    awaitReady(readyTimeout);
  }

  /** Ready when the REST API answers {@code GET /connectors} with 200. */
  public void awaitReady(Duration timeout) {
    ConnectRestClient rest = new ConnectRestClient(restUrl());
    Wait.until(
        name + " REST API at " + restUrl(),
        timeout,
        Duration.ofMillis(250),
        process::requireAlive,
        rest::isReady);
  }

  /** Peak resident memory of the worker JVM so far (VmHWM), in bytes; -1 where /proc is missing. */
  public long peakRssBytes() {
    try {
      for (String line :
          java.nio.file.Files.readAllLines(
              Path.of("/proc", Long.toString(process.pid()), "status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  public ManagedProcess process() {
    return process;
  }

  public Path logFile() {
    return dir.resolve("connect.log");
  }

  @Override
  public void close() {
    if (process != null) {
      process.stop(Duration.ofSeconds(30));
    }
  }
}
