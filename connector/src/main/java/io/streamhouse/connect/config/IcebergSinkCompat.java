package io.streamhouse.connect.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Turns a configuration of the Apache Iceberg Kafka Connect sink (1.10 to 1.12: {@code
 * iceberg.tables}, {@code iceberg.catalog.*}, {@code iceberg.control.*}, ...) into this connector's
 * keys, before validation. Every Apache key is mapped onto ours, or is an error naming the key and
 * why it is not supported, or (for the keys of the Apache sink's own commit machinery, which this
 * connector does not need) a warning; README, "Switching from the Apache Iceberg sink", has the
 * table. Keys of ours set beside the Apache ones win over what the Apache ones map to.
 */
public final class IcebergSinkCompat {
  /** What a translation gives: the props under our keys, and per key the errors and warnings. */
  public record Translation(
      Map<String, String> props,
      Map<String, List<String>> errors,
      Map<String, String> origins,
      List<String> warnings) {
    /** The Apache key that {@code ourKey} was mapped from, or null. */
    public String originOf(String ourKey) {
      return origins.get(ourKey);
    }
  }

  static final String PREFIX = "iceberg.";
  static final String TABLES = "iceberg.tables";
  static final String DYNAMIC = "iceberg.tables.dynamic-enabled";
  static final String ROUTE_FIELD = "iceberg.tables.route-field";
  static final String DEFAULT_COMMIT_BRANCH = "iceberg.tables.default-commit-branch";
  static final String DEFAULT_ID_COLUMNS = "iceberg.tables.default-id-columns";
  static final String DEFAULT_PARTITION_BY = "iceberg.tables.default-partition-by";
  static final String AUTO_CREATE = "iceberg.tables.auto-create-enabled";
  static final String EVOLVE_SCHEMA = "iceberg.tables.evolve-schema-enabled";
  static final String FORCE_OPTIONAL = "iceberg.tables.schema-force-optional";
  static final String CASE_INSENSITIVE = "iceberg.tables.schema-case-insensitive";
  static final String AUTO_CREATE_PROPS = "iceberg.tables.auto-create-props.";
  static final String WRITE_PROPS = "iceberg.tables.write-props.";
  static final String TABLE_PREFIX = "iceberg.table.";
  static final String CATALOG_NAME = "iceberg.catalog";
  static final String CATALOG_PREFIX = "iceberg.catalog.";
  static final String HADOOP_PREFIX = "iceberg.hadoop.";
  static final String HADOOP_CONF_DIR = "iceberg.hadoop-conf-dir";
  static final String KAFKA_PREFIX = "iceberg.kafka.";
  static final String CONTROL_TOPIC = "iceberg.control.topic";
  static final String CONTROL_GROUP_ID_PREFIX = "iceberg.control.group-id-prefix";
  static final String COMMIT_INTERVAL_MS = "iceberg.control.commit.interval-ms";
  static final String COMMIT_TIMEOUT_MS = "iceberg.control.commit.timeout-ms";
  static final String COMMIT_THREADS = "iceberg.control.commit.threads";
  static final String COMMIT_MAX_FAILURES = "iceberg.control.commit.max-consecutive-failures";
  static final String CONNECT_GROUP_ID = "iceberg.connect.group-id";
  static final String TRANSACTIONAL_PREFIX = "iceberg.coordinator.transactional.prefix";
  static final String TRANSACTIONAL_SUFFIX = "iceberg.coordinator.transactional.suffix";
  static final String KEEP_ALIVE_MS = "iceberg.coordinator-executor-keep-alive-timeout-ms";

  /** The Apache sink's catalog name when {@code iceberg.catalog} is not set. */
  static final String DEFAULT_CATALOG = "iceberg";

  /** The Apache sink's control topic when {@code iceberg.control.topic} is not set. */
  static final String APACHE_CONTROL_TOPIC_DEFAULT = "control-iceberg";

  /** The Apache sink commits every 5 minutes by default; a switch keeps that cadence. */
  static final String APACHE_COMMIT_INTERVAL_MS_DEFAULT = "300000";

  /** The route of dynamic routing ({@code iceberg.tables.dynamic-enabled}). */
  public static final String DYNAMIC_ROUTE = "dynamic";

  static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]+");

  /** Catalog classes with a catalog type of ours. */
  static final Map<String, String> TYPE_OF_IMPL =
      Map.of(
          "org.apache.iceberg.rest.RESTCatalog", "rest",
          "org.apache.iceberg.jdbc.JdbcCatalog", "jdbc",
          "org.apache.iceberg.hadoop.HadoopCatalog", "hadoop");

  static final String GLUE_CATALOG_IMPL = "org.apache.iceberg.aws.glue.GlueCatalog";

  /** Kafka client settings of the worker that may be copied into a connector config. */
  static final Set<String> WORKER_CLIENT_KEYS =
      Set.of(
          "bootstrap.servers",
          "client.dns.lookup",
          "security.protocol",
          "sasl.mechanism",
          "sasl.kerberos.service.name",
          "sasl.login.callback.handler.class",
          "sasl.client.callback.handler.class",
          "sasl.oauthbearer.token.endpoint.url",
          "ssl.protocol",
          "ssl.enabled.protocols",
          "ssl.endpoint.identification.algorithm",
          "ssl.truststore.location",
          "ssl.truststore.type",
          "ssl.keystore.location",
          "ssl.keystore.type");

  /** Secrets of the worker, which are never copied into a connector config (Connect stores it). */
  static final List<String> WORKER_SECRET_KEYS =
      List.of(
          "sasl.jaas.config",
          "ssl.truststore.password",
          "ssl.keystore.password",
          "ssl.key.password");

  private IcebergSinkCompat() {}

  /** True when {@code props} holds a key of the Apache Iceberg sink (any unknown iceberg.* key). */
  public static boolean applies(Map<String, String> props) {
    return props.keySet().stream().anyMatch(IcebergSinkCompat::isApacheKey);
  }

  static boolean isApacheKey(String key) {
    return key.startsWith(PREFIX) && !SinkConfigDef.CONFIG.names().contains(key);
  }

  /** {@code props} under our keys; errors and warnings are dropped (validation reports them). */
  public static Map<String, String> apply(Map<String, String> props) {
    return translate(props).props();
  }

  /**
   * Translates {@code given}; the Connect worker's properties file (found as the Apache sink finds
   * it) supplies the Kafka connection settings when the config has none.
   */
  public static Translation translate(Map<String, String> given) {
    return translate(given, IcebergSinkCompat::workerProperties);
  }

  static Translation translate(
      Map<String, String> given, Supplier<Map<String, String>> workerProperties) {
    if (!applies(given)) {
      return new Translation(given, Map.of(), Map.of(), List.of());
    }
    return run(given, workerProperties);
  }

  /** Runs the groups of keys over one translation's state. */
  private static Translation run(
      Map<String, String> given, Supplier<Map<String, String>> workerProperties) {
    ApacheKeysTranslation state = new ApacheKeysTranslation(given, workerProperties);
    String catalog = new ApacheCatalogKeys(state).catalog();
    state.set(SinkConfigDef.APACHE_CATALOG_CONFIG, catalog, CATALOG_NAME);
    new ApacheKafkaKeys(state).kafka();
    new ApacheCommitKeys(state).commit();
    new ApacheTableKeys(state).tables(catalog);
    for (String key : given.keySet()) {
      if (isApacheKey(key) && !state.handled.contains(key)) {
        state.error(
            key,
            "is not a key of the Apache Iceberg sink (1.10 to 1.12) nor of this connector; "
                + "remove it");
      }
    }
    return new Translation(
        Map.copyOf(state.out),
        Map.copyOf(state.errors),
        Map.copyOf(state.origins),
        List.copyOf(state.warnings));
  }

  /**
   * The Connect worker's properties, found as the Apache sink finds them: the JVM was started as
   * {@code ConnectDistributed} or {@code ConnectStandalone} with the properties file as first
   * argument. Empty when that is not so or the file cannot be read.
   */
  static Map<String, String> workerProperties() {
    return workerProperties(System.getProperty("sun.java.command"));
  }

  /** The worker properties named by JVM command line {@code command} (see above). */
  static Map<String, String> workerProperties(String command) {
    if (command == null || command.isBlank()) {
      return Map.of();
    }
    String[] args = command.trim().split("\\s+");
    if (args.length < 2
        || !(args[0].endsWith(".ConnectDistributed") || args[0].endsWith(".ConnectStandalone"))) {
      return Map.of();
    }
    Properties properties = new Properties();
    try (InputStream in = Files.newInputStream(Path.of(args[1]))) {
      properties.load(in);
    } catch (IOException | IllegalArgumentException e) {
      return Map.of();
    }
    Map<String, String> result = new LinkedHashMap<>();
    properties.stringPropertyNames().forEach(k -> result.put(k, properties.getProperty(k)));
    return result;
  }
}
