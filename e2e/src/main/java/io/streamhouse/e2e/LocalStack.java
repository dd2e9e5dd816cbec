package io.streamhouse.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;

/**
 * A real single-node KRaft broker plus one or more Connect distributed workers, each a child JVM
 * started from the Maven-resolved jars of one Kafka version, with our plugin as the only entry on
 * {@code plugin.path}. Used by the e2e tests and by the quickstart.
 */
public final class LocalStack implements AutoCloseable {
  public static final String DEFAULT_KAFKA_VERSION = "4.4.0";

  /**
   * The worker JVM property that lets a connector config arm the plugin's test-only fault
   * injection.
   */
  public static final String FAULT_INJECTION_PROPERTY = "streamhouse.fault-injection";

  private static final Duration BROKER_READY = Duration.ofSeconds(90);
  private static final Duration WORKER_READY = Duration.ofSeconds(120);

  private final Settings settings;
  private final KafkaDistribution kafka;
  private final KafkaBroker broker;
  private final List<ConnectWorker> workers = new ArrayList<>();

  private LocalStack(Settings settings) {
    this.settings = settings;
    this.kafka =
        KafkaDistribution.resolve(
            settings.kafkaVersion, settings.distributionCache, settings.mavenCmd);
    this.broker =
        new KafkaBroker(
            kafka,
            settings.runDir.resolve("broker"),
            settings.brokerConfig,
            settings.admin,
            settings.scramUsers);
  }

  /** What a stack is made of; every field has a default that works from a fresh checkout. */
  public static final class Settings {
    private String kafkaVersion = DEFAULT_KAFKA_VERSION;
    private Path runDir;
    private Path pluginPath;
    private Path distributionCache;
    private String mavenCmd = "mvn";
    private final Map<String, String> brokerConfig = new LinkedHashMap<>();
    private final Map<String, String> workerConfig = new LinkedHashMap<>();
    private List<String> workerJvmFlags = ConnectWorker.DEFAULT_JVM_FLAGS;
    private boolean faultInjection;
    private ScramUser admin;
    private final List<ScramUser> scramUsers = new ArrayList<>();
    private final List<AclBinding> acls = new ArrayList<>();

    public Settings kafkaVersion(String version) {
      this.kafkaVersion = version;
      return this;
    }

    public Settings runDir(Path dir) {
      this.runDir = dir.toAbsolutePath();
      return this;
    }

    /** The folder whose children are plugins: {@code connector/target/plugin-path}. */
    public Settings pluginPath(Path path) {
      this.pluginPath = path.toAbsolutePath();
      return this;
    }

    /** Where Kafka distributions are resolved to (kept across runs). */
    public Settings distributionCache(Path dir) {
      this.distributionCache = dir.toAbsolutePath();
      return this;
    }

    /** The Maven command used to resolve Kafka distributions. */
    public Settings mavenCmd(String cmd) {
      this.mavenCmd = cmd;
      return this;
    }

    public Settings brokerConfig(String key, String value) {
      brokerConfig.put(key, value);
      return this;
    }

    public Settings workerConfig(String key, String value) {
      workerConfig.put(key, value);
      return this;
    }

    public Settings workerJvmFlags(List<String> flags) {
      this.workerJvmFlags = List.copyOf(flags);
      return this;
    }

    /**
     * Starts the workers with {@code -Dstreamhouse.fault-injection=enabled}, without which the
     * plugin refuses its test-only {@code streamhouse.test.halt-at} key.
     */
    public Settings faultInjection(boolean enabled) {
      this.faultInjection = enabled;
      return this;
    }

    /**
     * A secured broker: SASL_PLAINTEXT with SCRAM-SHA-512, ACLs enforced (no ACL: denied), and
     * {@code admin} the only super user. The stack's own clients ({@link #admin()}, {@link
     * #producer()}, {@link #createTopic}) authenticate as {@code admin}.
     */
    public Settings secured(ScramUser admin) {
      this.admin = admin;
      return this;
    }

    /** One more SCRAM user, created with the broker's storage (secured stacks only). */
    public Settings scramUser(ScramUser user) {
      scramUsers.add(user);
      return this;
    }

    /**
     * The workers authenticate as {@code user}: their own clients, and the {@code consumer.},
     * {@code producer.} and {@code admin.} clients they give connectors (sink consumers, dead
     * letter queues).
     */
    public Settings workerUser(ScramUser user) {
      for (String prefix : List.of("", "consumer.", "producer.", "admin.")) {
        user.clientProperties().forEach((k, v) -> workerConfig.put(prefix + k, v));
      }
      return this;
    }

    /** ACLs created as the admin once the broker is up, before the first worker starts. */
    public Settings acls(Collection<AclBinding> bindings) {
      acls.addAll(bindings);
      return this;
    }

    public String kafkaVersion() {
      return kafkaVersion;
    }

    /** Starts the stack: broker and first worker in parallel, then waits until both are ready. */
    public LocalStack start() {
      if (runDir == null || pluginPath == null) {
        throw new IllegalStateException("runDir and pluginPath are required");
      }
      if (!Files.isDirectory(pluginPath)) {
        throw new IllegalStateException(
            "No plugin archive at "
                + pluginPath
                + ": build it first with ./mvnw -DskipTests package");
      }
      if (admin == null && (!scramUsers.isEmpty() || !acls.isEmpty())) {
        throw new IllegalStateException("SCRAM users and ACLs need a secured(admin) broker");
      }
      if (distributionCache == null) {
        distributionCache = runDir.resolve("kafka-dists");
      }
      LocalStack stack = new LocalStack(this);
      try {
        stack.startAll();
      } catch (RuntimeException e) {
        stack.close();
        throw e;
      }
      return stack;
    }
  }

  public static Settings settings() {
    return new Settings();
  }

  private void startAll() {
    broker.prepare();
    broker.start();
    if (!settings.acls.isEmpty()) {
      // A worker without its ACLs would fail to set up its internal topics: ACLs first.
      broker.awaitReady(BROKER_READY);
      createAcls(settings.acls);
    }
    ConnectWorker first = newWorker();
    first.start(); // the worker retries until the broker is up, so both start at once
    CompletableFuture<Void> brokerReady =
        CompletableFuture.runAsync(() -> broker.awaitReady(BROKER_READY));
    first.awaitReady(WORKER_READY);
    brokerReady.join();
  }

  private ConnectWorker newWorker() {
    int index = workers.size();
    String name = "connect-" + index;
    List<String> flags = new ArrayList<>(settings.workerJvmFlags);
    if (settings.faultInjection) {
      flags.add("-D" + FAULT_INJECTION_PROPERTY + "=enabled");
    }
    ConnectWorker worker =
        new ConnectWorker(
            kafka,
            settings.runDir.resolve(name),
            name,
            broker.bootstrapServers(),
            settings.pluginPath,
            settings.workerConfig,
            flags);
    workers.add(worker);
    return worker;
  }

  /** Starts one more worker in the same Connect cluster (it joins the group: a rebalance). */
  public ConnectWorker addWorker() {
    ConnectWorker worker = newWorker();
    worker.start();
    worker.awaitReady(WORKER_READY);
    return worker;
  }

  public String kafkaVersion() {
    return kafka.version();
  }

  public String bootstrapServers() {
    return broker.bootstrapServers();
  }

  public KafkaBroker broker() {
    return broker;
  }

  /** The first worker. */
  public ConnectWorker worker() {
    return workers.get(0);
  }

  public List<ConnectWorker> workers() {
    return List.copyOf(workers);
  }

  /** REST client of the first worker. */
  public ConnectRestClient connect() {
    return new ConnectRestClient(worker().restUrl());
  }

  public Path runDir() {
    return settings.runDir;
  }

  /** A new Admin client (the admin user of a secured stack); the caller closes it. */
  public Admin admin() {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    props.putAll(clientSecurity());
    return Admin.create(props);
  }

  public JsonRecordProducer producer() {
    return new JsonRecordProducer(bootstrapServers(), clientSecurity());
  }

  /**
   * The security settings of the stack's own clients: the admin user's on a secured stack, else
   * none.
   */
  public Map<String, String> clientSecurity() {
    return settings.admin == null ? Map.of() : settings.admin.clientProperties();
  }

  /**
   * Creates ACLs and returns once the broker enforces them (it answers DescribeAcls from the same
   * authorizer that checks requests).
   */
  public void createAcls(Collection<AclBinding> bindings) {
    try (Admin admin = admin()) {
      admin.createAcls(bindings).all().get();
      Wait.until(
          "the broker to apply " + bindings.size() + " ACLs",
          Duration.ofSeconds(30),
          Duration.ofMillis(100),
          () -> {},
          () -> {
            try {
              return admin.describeAcls(AclBindingFilter.ANY).values().get().containsAll(bindings);
            } catch (Exception notYet) {
              return false;
            }
          });
    } catch (Exception e) {
      throw new IllegalStateException("Cannot create ACLs " + bindings + ": " + e, e);
    }
  }

  /**
   * Creates a topic with {@code partitions} partitions and replication factor 1; returns once every
   * partition has a leader.
   */
  public void createTopic(String name, int partitions, Map<String, String> config) {
    try (Admin admin = admin()) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(config)))
          .all()
          .get();
      Wait.until(
          "leaders of every partition of " + name,
          Duration.ofSeconds(30),
          Duration.ofMillis(100),
          () -> {},
          () -> {
            try {
              return admin
                  .describeTopics(List.of(name))
                  .allTopicNames()
                  .get()
                  .get(name)
                  .partitions()
                  .stream()
                  .allMatch(p -> p.leader() != null && !p.leader().isEmpty());
            } catch (Exception notYet) {
              return false;
            }
          });
    } catch (Exception e) {
      throw new IllegalStateException("Cannot create topic " + name + ": " + e, e);
    }
  }

  /** PIDs of every process of the stack, by name. */
  public Map<String, Long> pids() {
    Map<String, Long> pids = new LinkedHashMap<>();
    pids.put("broker", broker.process().pid());
    for (ConnectWorker w : workers) {
      if (w.process() != null) {
        pids.put(w.name(), w.process().pid());
      }
    }
    return pids;
  }

  /** Stops the workers, then the broker. */
  @Override
  public void close() {
    for (ConnectWorker worker : workers) {
      worker.close();
    }
    broker.close();
  }
}
