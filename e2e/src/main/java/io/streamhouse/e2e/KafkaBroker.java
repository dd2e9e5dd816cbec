package io.streamhouse.e2e;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A single-node KRaft broker (combined broker + controller) in a child JVM. */
public final class KafkaBroker implements AutoCloseable {
  static final List<String> JVM_FLAGS =
      List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private final KafkaDistribution kafka;
  private final Path dir;
  private final int port;
  private final int controllerPort;
  private final Map<String, String> overrides;
  private final ScramUser admin;
  private final List<ScramUser> users;
  private ManagedProcess process;

  /**
   * A broker with a PLAINTEXT client listener and no authorizer when {@code admin} is null;
   * otherwise secured: SASL (SCRAM-SHA-512) on the client listener, ACLs, {@code admin} the only
   * super user, and {@code users} created with the storage.
   */
  KafkaBroker(
      KafkaDistribution kafka,
      Path dir,
      Map<String, String> overrides,
      ScramUser admin,
      List<ScramUser> users) {
    this.kafka = kafka;
    this.dir = dir;
    this.port = FreePorts.next();
    this.controllerPort = FreePorts.next();
    this.overrides = overrides;
    this.admin = admin;
    this.users = List.copyOf(users);
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  /** Writes the configuration and formats the log directory (once; a restart keeps the data). */
  void prepare() {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("process.roles", "broker,controller");
    props.put("node.id", "1");
    props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    props.put("controller.listener.names", "CONTROLLER");
    if (admin == null) {
      props.put(
          "listeners",
          "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
      props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
      props.put("inter.broker.listener.name", "PLAINTEXT");
      props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    } else {
      props.putAll(securedListeners());
    }
    props.put("log.dirs", dir.resolve("data").toString());
    props.put("num.partitions", "1");
    props.put("offsets.topic.replication.factor", "1");
    props.put("offsets.topic.num.partitions", "1");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("share.coordinator.state.topic.replication.factor", "1");
    props.put("share.coordinator.state.topic.min.isr", "1");
    props.put("group.initial.rebalance.delay.ms", "0");
    props.put("auto.create.topics.enable", "false");
    props.putAll(overrides);
    PropertiesFile.write(dir.resolve("server.properties"), props);
    LogConfig.write(dir);
    List<String> format =
        new ArrayList<>(
            List.of(
                "format",
                "--config",
                dir.resolve("server.properties").toString(),
                "--cluster-id",
                randomClusterId(),
                "--ignore-formatted"));
    if (admin != null) {
      for (ScramUser user : allUsers()) {
        format.add("--add-scram");
        format.add(user.storageToolArgument());
      }
    }
    ManagedProcess.run(
        "kafka-storage-format",
        JavaCommand.of(
            kafka, dir, JVM_FLAGS, "kafka.tools.StorageTool", format.toArray(String[]::new)),
        dir,
        dir.resolve("format.log"),
        Duration.ofMinutes(2));
  }

  /**
   * Clients and the broker itself (inter-broker) use SCRAM-SHA-512 on the one client listener; the
   * broker authenticates as {@code admin}. The controller listener cannot use SCRAM (its
   * credentials live in the metadata the controller serves), so it uses PLAIN with {@code admin} as
   * its one static user. Nothing connects unauthenticated, and {@code admin} is the only super
   * user: everyone else needs ACLs (no ACL: denied).
   */
  private Map<String, String> securedListeners() {
    Map<String, String> props = new LinkedHashMap<>();
    props.put(
        "listeners",
        "SASL_PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
    props.put("advertised.listeners", "SASL_PLAINTEXT://127.0.0.1:" + port);
    props.put("inter.broker.listener.name", "SASL_PLAINTEXT");
    props.put(
        "listener.security.protocol.map",
        "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT");
    props.put("sasl.enabled.mechanisms", ScramUser.MECHANISM);
    props.put("sasl.mechanism.inter.broker.protocol", ScramUser.MECHANISM);
    props.put(
        "listener.name.sasl_plaintext."
            + ScramUser.MECHANISM.toLowerCase(java.util.Locale.ROOT)
            + ".sasl.jaas.config",
        admin.jaasConfig());
    props.put("sasl.mechanism.controller.protocol", "PLAIN");
    props.put("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
    props.put(
        "listener.name.controller.plain.sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
            + admin.name()
            + "\" password=\""
            + admin.password()
            + "\" user_"
            + admin.name()
            + "=\""
            + admin.password()
            + "\";");
    props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
    props.put("allow.everyone.if.no.acl.found", "false");
    props.put("super.users", admin.principal());
    return props;
  }

  private List<ScramUser> allUsers() {
    List<ScramUser> all = new ArrayList<>();
    all.add(admin);
    all.addAll(users);
    return all;
  }

  void start() {
    process =
        ManagedProcess.start(
            "kafka-broker",
            JavaCommand.of(
                kafka, dir, JVM_FLAGS, "kafka.Kafka", dir.resolve("server.properties").toString()),
            dir,
            dir.resolve("broker.log"));
  }

  /** The broker opens its client port only once it has started, so a TCP connect means ready. */
  void awaitReady(Duration timeout) {
    Wait.until(
        "the Kafka broker on port " + port,
        timeout,
        Duration.ofMillis(200),
        process::requireAlive,
        this::acceptsConnections);
  }

  private boolean acceptsConnections() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  public ManagedProcess process() {
    return process;
  }

  /**
   * A base64url UUID like Kafka's own; never starting with '-', which the tool would take for an
   * option.
   */
  static String randomClusterId() {
    SecureRandom random = new SecureRandom();
    byte[] bytes = new byte[16];
    String id;
    do {
      random.nextBytes(bytes);
      id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    } while (id.startsWith("-"));
    return id;
  }

  @Override
  public void close() {
    if (process != null) {
      process.stop(Duration.ofSeconds(20));
    }
  }
}
