package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * A secured cluster (SASL/SCRAM-SHA-512, ACLs, no ACL means denied): the worker authenticates as
 * {@code connect}, the connector's own clients (control topic, lag monitor) as {@code sink} with a
 * secret that reaches them only through a Connect config provider, each with the ACLs below and no
 * more. Records land once in the table, and a third user who may read the control topic but not
 * write it is refused by the broker while the connector goes on committing.
 */
class SecuredClusterE2E {
  static final ScramUser ADMIN = new ScramUser("admin", "admin-pw-7Rk2");
  static final ScramUser CONNECT = new ScramUser("connect", "connect-pw-4Hq9");
  static final ScramUser SINK = new ScramUser("sink", "sink-pw-8Zt3");
  static final ScramUser INTRUDER = new ScramUser("intruder", "intruder-pw-2Mx6");
  static final String CONNECTOR = "secured";
  static final String TOPIC = "secured-orders";
  static final String CONTROL_TOPIC = "ctl-" + CONNECTOR;
  static final String WORKER_GROUP = "streamhouse-connect";

  /** One ACL and why the worker or the connector needs it. */
  record Grant(
      ScramUser user,
      ResourceType type,
      String name,
      PatternType pattern,
      AclOperation operation,
      String why) {
    AclBinding binding() {
      return new AclBinding(
          new ResourcePattern(type, name, pattern),
          new AccessControlEntry(user.principal(), "*", operation, AclPermissionType.ALLOW));
    }
  }

  /**
   * What the worker needs whatever connectors it runs. Each was taken away once: without the group,
   * or any of the three on its internal topics, the worker's REST API comes up but no connector can
   * be created (the herder thread dies, or never reads its config topic to the end). It needs no
   * DESCRIBE_CONFIGS on its internal topics and no cluster ACL.
   */
  static List<Grant> workerGrants() {
    String internal = "_connect-";
    return List.of(
        new Grant(
            CONNECT,
            ResourceType.GROUP,
            WORKER_GROUP,
            PatternType.LITERAL,
            AclOperation.READ,
            "worker group membership"),
        new Grant(
            CONNECT,
            ResourceType.TOPIC,
            internal,
            PatternType.PREFIXED,
            AclOperation.CREATE,
            "creates its config/offset/status topics on first start"),
        new Grant(
            CONNECT,
            ResourceType.TOPIC,
            internal,
            PatternType.PREFIXED,
            AclOperation.READ,
            "reads its config/offset/status topics"),
        new Grant(
            CONNECT,
            ResourceType.TOPIC,
            internal,
            PatternType.PREFIXED,
            AclOperation.WRITE,
            "writes its config/offset/status topics"));
  }

  /**
   * What one sink connector needs: the worker's sink consumer and dead letter queue, and the
   * connector's own clients. Each was taken away once; what then happens is said with it. Not
   * needed: DESCRIBE_CONFIGS on the control topic, any cluster ACL (the idempotent control producer
   * only needs WRITE on a topic, no IDEMPOTENT_WRITE).
   */
  static List<Grant> connectorGrants(String connector, String topic) {
    String group = "connect-" + connector;
    String control = "ctl-" + connector;
    String dlq = "dlq-" + connector;
    ResourceType t = ResourceType.TOPIC;
    PatternType literal = PatternType.LITERAL;
    return List.of(
        new Grant(
            CONNECT,
            ResourceType.GROUP,
            group,
            literal,
            AclOperation.READ,
            "the sink consumer's group (else the tasks fail: GroupAuthorizationException)"),
        new Grant(
            CONNECT,
            t,
            topic,
            literal,
            AclOperation.READ,
            "the sink consumer reads the topic (else, silently, no partition is assigned)"),
        new Grant(
            CONNECT,
            t,
            dlq,
            literal,
            AclOperation.CREATE,
            "Connect creates the dead letter queue at task start (else the tasks fail)"),
        new Grant(CONNECT, t, dlq, literal, AclOperation.WRITE, "Connect writes bad records to it"),
        new Grant(
            SINK,
            t,
            control,
            literal,
            AclOperation.CREATE,
            "task 0 creates the control topic (else it fails: TopicAuthorizationException)"),
        new Grant(
            SINK,
            t,
            control,
            literal,
            AclOperation.READ,
            "every task reads commit rounds (else they fail)"),
        new Grant(
            SINK,
            t,
            control,
            literal,
            AclOperation.WRITE,
            "every task writes commit rounds (else they fail)"),
        new Grant(
            SINK,
            t,
            topic,
            literal,
            AclOperation.READ,
            "lag monitor: partitions, offsets, the oldest unread "
                + "record's time (with DESCRIBE only, checks fail while there is lag; with nothing, it measures nothing)"),
        new Grant(
            SINK,
            t,
            topic,
            literal,
            AclOperation.DESCRIBE_CONFIGS,
            "lag monitor: retention (else checks fail)"),
        new Grant(
            SINK,
            ResourceType.GROUP,
            group,
            literal,
            AclOperation.DESCRIBE,
            "lag monitor: the sink consumer's committed offsets (else checks fail)"));
  }

  static List<AclBinding> bindings(List<Grant> grants) {
    return grants.stream().map(Grant::binding).toList();
  }

  @Test
  void theSinkCommitsExactlyOnceWithLeastPrivilegeAndOthersCannotWriteItsControlTopic()
      throws Exception {
    try (LocalStack stack =
        E2eSettings.stack("SecuredClusterE2E", E2eSettings.kafkaVersion())
            .secured(ADMIN)
            .scramUser(CONNECT)
            .scramUser(SINK)
            .scramUser(INTRUDER)
            .workerUser(CONNECT)
            .workerConfig("config.providers", "file")
            .workerConfig(
                "config.providers.file.class",
                "org.apache.kafka.common.config.provider.FileConfigProvider")
            .acls(bindings(workerGrants()))
            .acls(bindings(connectorGrants(CONNECTOR, TOPIC)))
            // Someone else who may see and read the commit rounds, not take part.
            .acls(
                List.of(
                    new Grant(
                            INTRUDER,
                            ResourceType.TOPIC,
                            CONTROL_TOPIC,
                            PatternType.LITERAL,
                            AclOperation.READ,
                            "reads, must not write")
                        .binding()))
            .start()) {
      stack.createTopic(TOPIC, 2, Map.of());
      Path secrets = stack.runDir().resolve("secrets").resolve("sink.properties");
      Files.createDirectories(secrets.getParent());
      Files.writeString(secrets, "sink.jaas=" + SINK.jaasConfig() + "\n", StandardCharsets.UTF_8);
      ConnectorExample sink =
          IcebergSink.config(
              stack,
              CONNECTOR,
              TOPIC,
              Map.of(
                  "tasks.max", "2",
                  "lag.check-interval.ms", "1000",
                  "kafka.security.protocol", "SASL_PLAINTEXT",
                  "kafka.sasl.mechanism", ScramUser.MECHANISM,
                  "kafka.sasl.jaas.config", "${file:" + secrets + ":sink.jaas}"));
      stack.connect().putConfig(sink.name(), sink.config());

      Set<Long> produced = new HashSet<>();
      IcebergFaultsE2E.produce(stack, TOPIC, 0, 1000, produced);
      try (IcebergTables tables = IcebergSink.tables(stack)) {
        awaitRows(stack, tables, produced.size());
        IcebergSink.assertExactlyOnce(stack, tables, CONNECTOR, TOPIC, produced);

        // Authenticated, allowed to see and read the control topic, refused by the broker when
        // writing.
        try (KafkaProducer<byte[], byte[]> intruder = intruderProducer(stack)) {
          assertThat(intruder.partitionsFor(CONTROL_TOPIC)).hasSize(1);
          assertThatThrownBy(
                  () ->
                      intruder
                          .send(
                              new ProducerRecord<>(
                                  CONTROL_TOPIC, "forged commit".getBytes(StandardCharsets.UTF_8)))
                          .get(30, TimeUnit.SECONDS))
              .isInstanceOf(ExecutionException.class)
              .cause()
              .isInstanceOf(TopicAuthorizationException.class)
              .hasMessageContaining(CONTROL_TOPIC);
        }

        // A bad record first, so that the good ones after it in its partition close the round.
        try (JsonRecordProducer producer = stack.producer()) {
          producer.sendRaw(TOPIC, null, "malformed", "{\"schema\": {");
          producer.flush();
        }
        IcebergFaultsE2E.produce(stack, TOPIC, 1000, 1000, produced);
        awaitRows(stack, tables, produced.size());
        IcebergSink.assertExactlyOnce(stack, tables, CONNECTOR, TOPIC, produced);
        assertThat(stack.connect().isRunning(CONNECTOR, 2)).isTrue();
      }
      assertThat(BadInputE2E.readAll(stack, "dlq-" + CONNECTOR, 1))
          .extracting(r -> r.key())
          .containsExactly("malformed");

      // The lag monitor works with its ACLs: every partition measured, nothing left to read.
      try (WorkerJmx jmx = new WorkerJmx(stack.worker().process().pid())) {
        String partitions =
            "kafka.connect:type=plugins,connector="
                + CONNECTOR
                + ",task=0,topic="
                + TOPIC
                + ",partition=*";
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(500))
            .untilAsserted(
                () ->
                    assertThat(jmx.values(partitions, "partition", "lag-records"))
                        .containsOnlyKeys("0", "1")
                        .allSatisfy((p, lag) -> assertThat(lag).isZero()));
      }

      // The secret stays a reference in the stored config and out of the log.
      String storedConfig = stack.connect().config(CONNECTOR).toString();
      assertThat(storedConfig)
          .contains("${file:" + secrets + ":sink.jaas}")
          .doesNotContain(SINK.password());
      String log = Files.readString(stack.worker().logFile());
      assertThat(log).contains("Created control topic " + CONTROL_TOPIC);
      for (String secret : List.of(SINK.password(), CONNECT.password(), ADMIN.password())) {
        assertThat(linesWith(log, secret)).as("worker log lines with a password").isEmpty();
      }
      assertThat(linesWith(log, "a lag check failed")).isEmpty();
      stack.connect().delete(CONNECTOR);
    }
  }

  /**
   * Non-idempotent: the broker judges the produce request itself, not a producer-id request first.
   */
  private static KafkaProducer<byte[], byte[]> intruderProducer(LocalStack stack) {
    Map<String, Object> props = new HashMap<>(INTRUDER.clientProperties());
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    props.put(ProducerConfig.ACKS_CONFIG, "1");
    props.put(ProducerConfig.RETRIES_CONFIG, "0");
    return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
  }

  static List<String> linesWith(String log, String text) {
    return log.lines().filter(line -> line.contains(text)).toList();
  }

  private static void awaitRows(LocalStack stack, IcebergTables tables, int rows) {
    String table = IcebergSink.tableOf(TOPIC);
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofSeconds(1))
        .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, CONNECTOR))
        .until(() -> tables.exists(table) && tables.rows(table).size() == rows);
  }
}
