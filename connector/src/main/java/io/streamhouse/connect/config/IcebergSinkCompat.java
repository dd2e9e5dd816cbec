package io.streamhouse.connect.config;

import io.streamhouse.connect.schema.EvolutionMode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
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

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]+");

  /** Catalog classes with a catalog type of ours. */
  private static final Map<String, String> TYPE_OF_IMPL =
      Map.of(
          "org.apache.iceberg.rest.RESTCatalog", "rest",
          "org.apache.iceberg.jdbc.JdbcCatalog", "jdbc",
          "org.apache.iceberg.hadoop.HadoopCatalog", "hadoop");

  static final String GLUE_CATALOG_IMPL = "org.apache.iceberg.aws.glue.GlueCatalog";

  /** Kafka client settings of the worker that may be copied into a connector config. */
  private static final Set<String> WORKER_CLIENT_KEYS =
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
  private static final List<String> WORKER_SECRET_KEYS =
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
    return new Translator(given, workerProperties).run();
  }

  /** One translation's state. */
  private static final class Translator {
    private final Map<String, String> given;
    private final Supplier<Map<String, String>> workerProperties;
    private final Map<String, String> out = new LinkedHashMap<>();
    private final Map<String, List<String>> errors = new LinkedHashMap<>();
    private final Map<String, String> origins = new LinkedHashMap<>();
    private final List<String> warnings = new ArrayList<>();
    private final Set<String> handled = new LinkedHashSet<>();

    Translator(Map<String, String> given, Supplier<Map<String, String>> workerProperties) {
      this.given = given;
      this.workerProperties = workerProperties;
      given.forEach(
          (k, v) -> {
            if (!isApacheKey(k)) {
              out.put(k, v);
            }
          });
    }

    Translation run() {
      String catalog = catalog();
      set(SinkConfigDef.APACHE_CATALOG_CONFIG, catalog, CATALOG_NAME);
      kafka();
      commit();
      tables(catalog);
      for (String key : given.keySet()) {
        if (isApacheKey(key) && !handled.contains(key)) {
          error(
              key,
              "is not a key of the Apache Iceberg sink (1.10 to 1.12) nor of this connector; "
                  + "remove it");
        }
      }
      return new Translation(
          Map.copyOf(out), Map.copyOf(errors), Map.copyOf(origins), List.copyOf(warnings));
    }

    // ---- catalog ----

    private String catalog() {
      handled.add(CATALOG_NAME);
      String name = value(CATALOG_NAME, DEFAULT_CATALOG);
      if (!NAME.matcher(name).matches()) {
        error(
            CATALOG_NAME,
            "'" + name + "' cannot name a catalog here: use only a-z, A-Z, 0-9, '_' and '-'");
        name = DEFAULT_CATALOG;
      }
      Map<String, String> props = withPrefix(CATALOG_PREFIX);
      if (props.isEmpty()) {
        error(
            CATALOG_NAME,
            "no "
                + CATALOG_PREFIX
                + "* properties: set the catalog's type (or catalog-impl), uri and warehouse, as "
                + "for the Apache sink");
      }
      if (given.containsKey(SinkConfigDef.CATALOGS_CONFIG)) {
        error(
            CATALOG_NAME,
            "the Apache sink's catalog keys and this connector's 'catalogs' are both set: use "
                + "one or the other");
      }
      String p = CatalogConfigDef.PREFIX + name + ".";
      set(SinkConfigDef.CATALOGS_CONFIG, name, CATALOG_NAME);
      set(p + CatalogConfigDef.FORMAT, TableFormatKind.ICEBERG.configValue(), CATALOG_NAME);
      String typeKey = CATALOG_PREFIX + "type";
      String implKey = CATALOG_PREFIX + "catalog-impl";
      String type = blankToNull(props.remove("type"));
      String impl = blankToNull(props.get("catalog-impl"));
      if (type != null && impl != null) {
        error(
            typeKey,
            "set together with "
                + implKey
                + ": set one of them (Iceberg refuses a catalog with both, in the Apache sink too)");
      } else if (impl != null) {
        String known = TYPE_OF_IMPL.get(impl);
        if (known != null) {
          props.remove("catalog-impl");
          set(p + CatalogConfigDef.TYPE, known, implKey);
        } else if (unsupportedCatalog(impl, implKey)) {
          props.remove("catalog-impl");
        } else {
          set(p + CatalogConfigDef.TYPE, "custom", implKey);
        }
      } else if (type != null) {
        switch (type.toLowerCase(Locale.ROOT)) {
          case "rest", "jdbc", "hadoop" ->
              set(p + CatalogConfigDef.TYPE, type.toLowerCase(Locale.ROOT), typeKey);
          case "glue" -> {
            set(p + CatalogConfigDef.TYPE, "custom", typeKey);
            set(p + CatalogConfigDef.CATALOG_IMPL, GLUE_CATALOG_IMPL, typeKey);
          }
          default -> unsupportedCatalog(type, typeKey);
        }
      } else if (!props.isEmpty()) {
        error(
            typeKey,
            "is not set, nor "
                + implKey
                + ": the Apache sink then uses Iceberg's default, a Hive catalog, which this "
                + "connector does not support (no Hive client in the plugin); put a REST catalog in "
                + "front of the metastore, or set type rest, jdbc, hadoop or glue");
      }
      handled.add(typeKey);
      for (Map.Entry<String, String> e : props.entrySet()) {
        set(p + e.getKey(), e.getValue(), CATALOG_PREFIX + e.getKey());
      }
      withPrefix(HADOOP_PREFIX).forEach((k, v) -> set(p + "hadoop." + k, v, HADOOP_PREFIX + k));
      if (given.containsKey(HADOOP_CONF_DIR)) {
        handled.add(HADOOP_CONF_DIR);
        set(p + "hadoop-conf-dir", given.get(HADOOP_CONF_DIR), HADOOP_CONF_DIR);
      }
      return name;
    }

    /** Reports a catalog type or class that is not supported; true if it was one. */
    private boolean unsupportedCatalog(String typeOrImpl, String key) {
      String t = typeOrImpl.toLowerCase(Locale.ROOT);
      if (t.equals("hive") || t.endsWith(".hivecatalog")) {
        error(
            key,
            typeOrImpl
                + ": Hive Metastore catalogs are not supported: the plugin bundles no Hive client "
                + "(the Apache sink ships one only in its separate Hive distribution); put a REST "
                + "catalog in front of the metastore, or use rest, jdbc, hadoop or glue");
        return true;
      }
      if (t.contains(".") && !onClassPath(typeOrImpl)) {
        error(
            key,
            typeOrImpl
                + ": no such class on the plugin's class path; use a catalog type (rest, jdbc, "
                + "hadoop, glue) or add the catalog's jar to the plugin directory");
        return true;
      }
      if (!t.contains(".")) {
        error(
            key,
            typeOrImpl
                + ": this catalog type is not supported (the plugin bundles no client for it); use "
                + "rest, jdbc, hadoop or glue, or a catalog-impl class on the plugin's class path");
        return true;
      }
      return false;
    }

    private static boolean onClassPath(String className) {
      try {
        Class.forName(className, false, IcebergSinkCompat.class.getClassLoader());
        return true;
      } catch (ClassNotFoundException | LinkageError e) {
        return false;
      }
    }

    // ---- kafka ----

    private void kafka() {
      withPrefix(KAFKA_PREFIX)
          .forEach((k, v) -> set(SinkConfigDef.KAFKA_PREFIX + k, v, KAFKA_PREFIX + k));
      if (given.containsKey(SinkConfigDef.KAFKA_BOOTSTRAP_SERVERS_CONFIG)
          || given.containsKey(KAFKA_PREFIX + "bootstrap.servers")) {
        return;
      }
      Map<String, String> worker = workerProperties.get();
      if (!worker.containsKey("bootstrap.servers")) {
        return; // our validation reports kafka.bootstrap.servers as missing
      }
      warnings.add(
          "Kafka connection settings ("
              + String.join(
                  ", ",
                  worker.keySet().stream().filter(WORKER_CLIENT_KEYS::contains).sorted().toList())
              + ") come from the Connect worker's properties file, as the Apache sink takes them");
      for (Map.Entry<String, String> e : worker.entrySet()) {
        if (WORKER_CLIENT_KEYS.contains(e.getKey())) {
          set(SinkConfigDef.KAFKA_PREFIX + e.getKey(), e.getValue(), "worker properties");
        }
      }
      for (String secret : WORKER_SECRET_KEYS) {
        String ours = SinkConfigDef.KAFKA_PREFIX + secret;
        if (worker.containsKey(secret)
            && !given.containsKey(ours)
            && !given.containsKey(KAFKA_PREFIX + secret)) {
          error(
              ours,
              "the Connect worker's properties set "
                  + secret
                  + " for its clients; this connector copies no secret from them into its "
                  + "configuration (Connect stores it in its config topic): set "
                  + KAFKA_PREFIX
                  + secret
                  + " or "
                  + ours
                  + ", best through a config provider (${file:...})");
        }
      }
    }

    // ---- commit and control ----

    private void commit() {
      if (given.containsKey(COMMIT_INTERVAL_MS)) {
        setFrom(COMMIT_INTERVAL_MS, SinkConfigDef.COMMIT_INTERVAL_MS_CONFIG);
      } else {
        set(
            SinkConfigDef.COMMIT_INTERVAL_MS_CONFIG,
            APACHE_COMMIT_INTERVAL_MS_DEFAULT,
            COMMIT_INTERVAL_MS);
      }
      setFrom(COMMIT_TIMEOUT_MS, SinkConfigDef.COMMIT_TIMEOUT_MS_CONFIG);
      if (given.containsKey(COMMIT_THREADS)) {
        handled.add(COMMIT_THREADS);
        String threads = given.get(COMMIT_THREADS).trim();
        if (threads.matches("\\d+") && Long.parseLong(threads) > 64) {
          warnings.add(COMMIT_THREADS + "=" + threads + ": commit.parallelism is at most 64");
          threads = "64";
        }
        set(SinkConfigDef.COMMIT_PARALLELISM_CONFIG, threads, COMMIT_THREADS);
      }
      // The Apache sink's control topic holds the files of its last, maybe interrupted, commit:
      // the connector reads it once to finish that commit (the hand-over), then never again.
      handled.add(CONTROL_TOPIC);
      String apacheTopic = value(CONTROL_TOPIC, APACHE_CONTROL_TOPIC_DEFAULT);
      set(SinkConfigDef.APACHE_CONTROL_TOPIC_CONFIG, apacheTopic, CONTROL_TOPIC);
      if (given.containsKey(CONTROL_TOPIC)) {
        warnings.add(
            CONTROL_TOPIC
                + " ("
                + apacheTopic
                + ") is the Apache sink's control topic; this connector reads it once to commit "
                + "the files of the Apache sink's last unfinished commit, and sends its own events "
                + "to control.topic ("
                + given.getOrDefault(
                    SinkConfigDef.CONTROL_TOPIC_CONFIG, SinkConfigDef.CONTROL_TOPIC_DEFAULT)
                + ")");
        if (apacheTopic.equals(given.get(SinkConfigDef.CONTROL_TOPIC_CONFIG))) {
          error(
              CONTROL_TOPIC,
              "is also this connector's control.topic: the Apache sink's events there would "
                  + "mix with ours; give control.topic another name");
        }
      }
      notNeeded(
          CONTROL_GROUP_ID_PREFIX,
          "this connector reads its control topic without consumer groups");
      notNeeded(
          COMMIT_MAX_FAILURES,
          "a failed table commit here is retried the next round, never dropped, and counted in "
              + "table-commit-failures-total (alerts StreamhouseTableStale); the connector does not "
              + "stop for it");
      notNeeded(
          TRANSACTIONAL_PREFIX,
          "this connector uses no Kafka transactions, so it needs no transactional-id ACLs");
      notNeeded(KEEP_ALIVE_MS, "commit.parallelism sets the commit threads");
      notNeeded(TRANSACTIONAL_SUFFIX, "it is set by the Apache connector for its tasks");
      if (given.containsKey(CONNECT_GROUP_ID)) {
        handled.add(CONNECT_GROUP_ID);
        String group = given.get(CONNECT_GROUP_ID).trim();
        String connectGroup =
            "connect-" + given.getOrDefault(StreamhouseSinkConfig.CONNECTOR_NAME_CONFIG, "");
        if (!group.equals(connectGroup)) {
          error(
              CONNECT_GROUP_ID,
              "'"
                  + group
                  + "': this connector's offsets are those of Connect's own consumer group of the "
                  + "connector ("
                  + connectGroup
                  + "), which Connect commits; another group is not supported. Remove the key");
        }
      }
    }

    // ---- tables and routes ----

    private void tables(String catalog) {
      for (String key :
          List.of(
              TABLES,
              DYNAMIC,
              ROUTE_FIELD,
              DEFAULT_PARTITION_BY,
              AUTO_CREATE,
              EVOLVE_SCHEMA,
              FORCE_OPTIONAL,
              CASE_INSENSITIVE)) {
        handled.add(key);
      }
      List<String> tables = SinkConfigDef.names(given.get(TABLES));
      boolean dynamic = bool(DYNAMIC, false);
      String routeField = blankToNull(given.get(ROUTE_FIELD));
      boolean autoCreate = bool(AUTO_CREATE, false);
      boolean evolve = bool(EVOLVE_SCHEMA, false);
      if (bool(FORCE_OPTIONAL, false)) {
        error(
            FORCE_OPTIONAL,
            "true is not supported: columns follow the optionality of the record schema (new "
                + "columns from schema evolution are always optional); make the fields optional in "
                + "the producer's schema, or create the table beforehand with optional columns");
      }
      if (bool(CASE_INSENSITIVE, false)) {
        error(
            CASE_INSENSITIVE,
            "true is not supported: fields match columns by their exact name here, and a field "
                + "differing from a column only in case is rejected");
      }
      unsupported(
          DEFAULT_ID_COLUMNS,
          "upserts into Iceberg tables are not supported here (and in the Apache sink id-columns "
              + "never delete a row either); for upserts use a Paimon catalog with a primary-key "
              + "table, or remove the key");
      unsupported(
          DEFAULT_COMMIT_BRANCH,
          "commits to a branch are not supported: this connector commits to the table's main "
              + "branch; remove the key");
      unsupported("iceberg.tables.upsert-mode-enabled", tabularUpsert());
      unsupported("iceberg.tables.cdc-field", tabularUpsert());
      for (String key : given.keySet()) {
        if (key.startsWith(WRITE_PROPS)) {
          handled.add(key);
          String prop = key.substring(WRITE_PROPS.length());
          error(
              key,
              "writer settings are not overridden per connector here: the writers follow the "
                  + "table's own properties ("
                  + prop
                  + " included). Set "
                  + prop
                  + " on the table, and for tables the connector creates as "
                  + AUTO_CREATE_PROPS
                  + prop);
        }
      }
      if (given.containsKey(SinkConfigDef.ROUTES_CONFIG)) {
        error(
            TABLES,
            "the Apache sink's table keys and this connector's 'routes' are both set: use one or "
                + "the other");
        return;
      }
      Map<String, String> tableProperties = withPrefix(AUTO_CREATE_PROPS);
      String defaultPartitionBy = given.get(DEFAULT_PARTITION_BY);
      if (dynamic) {
        if (!tables.isEmpty()) {
          error(
              DYNAMIC,
              "true together with "
                  + TABLES
                  + ": set either static tables or dynamic routing (the Apache sink refuses both)");
        }
        if (routeField == null) {
          error(DYNAMIC, "dynamic routing needs " + ROUTE_FIELD + ", the field naming the table");
          return;
        }
        String p = route(DYNAMIC_ROUTE, catalog, autoCreate, evolve, tableProperties);
        set(p + RouteConfigDef.TABLE_FIELD, routeField, ROUTE_FIELD);
        set(p + RouteConfigDef.TABLE_FIELD_QUALIFIED, "true", DYNAMIC);
        if (!given.containsKey(p + RouteConfigDef.TABLE_ALLOW_REGEX)) {
          warnings.add(
              "dynamic routing takes any table that "
                  + routeField
                  + " names, as the Apache sink does; set "
                  + p
                  + RouteConfigDef.TABLE_ALLOW_REGEX
                  + " to allow only some");
        }
        set(p + RouteConfigDef.TABLE_ALLOW_REGEX, ".*", DYNAMIC);
        partitionBy(p, defaultPartitionBy, DEFAULT_PARTITION_BY);
        tableKeys(List.of(), true);
        return;
      }
      if (tables.isEmpty()) {
        error(
            TABLES,
            "no tables: list the destination tables in "
                + TABLES
                + ", or set "
                + DYNAMIC
                + "=true with "
                + ROUTE_FIELD);
        return;
      }
      Map<String, Map<String, String>> perTable = tableKeys(tables, false);
      List<String> routes = new ArrayList<>();
      for (String table : tables) {
        Map<String, String> settings = perTable.getOrDefault(table, Map.of());
        String regexKey = TABLE_PREFIX + table + ".route-regex";
        String regex = blankToNull(settings.get("route-regex"));
        if (routeField != null && regex == null) {
          warnings.add(
              "table "
                  + table
                  + " has no "
                  + regexKey
                  + " while "
                  + ROUTE_FIELD
                  + " is set: it receives no records, as in the Apache sink");
          continue;
        }
        if (routeField == null && regex != null) {
          warnings.add(
              regexKey + " applies only with " + ROUTE_FIELD + ": every record goes to " + table);
        }
        String routeName = routeName(table, routes);
        routes.add(routeName);
        String p = route(routeName, catalog, autoCreate, evolve, tableProperties);
        set(p + RouteConfigDef.TABLE, table, TABLES);
        if (routeField != null) {
          set(p + RouteConfigDef.MATCH_FIELD, routeField, ROUTE_FIELD);
          set(p + RouteConfigDef.MATCH_REGEX, regex, regexKey);
        }
        String partitionKey = TABLE_PREFIX + table + ".partition-by";
        if (settings.containsKey("partition-by")) {
          partitionBy(p, settings.get("partition-by"), partitionKey);
        } else {
          partitionBy(p, defaultPartitionBy, DEFAULT_PARTITION_BY);
        }
      }
      if (routes.isEmpty()) {
        error(
            ROUTE_FIELD,
            "no table in "
                + TABLES
                + " has a route-regex (iceberg.table.<table>.route-regex), so no record would be "
                + "written");
        return;
      }
      set(SinkConfigDef.ROUTES_CONFIG, String.join(",", routes), TABLES);
    }

    /** The keys every route of the translation shares; returns the route's key prefix. */
    private String route(
        String name,
        String catalog,
        boolean autoCreate,
        boolean evolve,
        Map<String, String> tableProperties) {
      String p = RouteConfigDef.PREFIX + name + ".";
      if (DYNAMIC_ROUTE.equals(name)) {
        set(SinkConfigDef.ROUTES_CONFIG, name, DYNAMIC);
      }
      if (given.containsKey(SinkConfigValidator.TOPICS_CONFIG)) {
        set(p + RouteConfigDef.TOPICS, given.get(SinkConfigValidator.TOPICS_CONFIG), "topics");
      }
      if (given.containsKey(SinkConfigValidator.TOPICS_REGEX_CONFIG)
          && !given.get(SinkConfigValidator.TOPICS_REGEX_CONFIG).isBlank()) {
        set(
            p + RouteConfigDef.TOPICS_REGEX,
            given.get(SinkConfigValidator.TOPICS_REGEX_CONFIG),
            "topics.regex");
      }
      set(p + RouteConfigDef.CATALOG, catalog, CATALOG_NAME);
      set(p + RouteConfigDef.AUTO_CREATE, Boolean.toString(autoCreate), AUTO_CREATE);
      set(
          p + RouteConfigDef.SCHEMA_EVOLUTION,
          (evolve ? EvolutionMode.ADD_AND_WIDEN : EvolutionMode.NONE).configValue(),
          EVOLVE_SCHEMA);
      tableProperties.forEach(
          (k, v) -> set(p + RouteConfigDef.TABLE_PROPERTY_PREFIX + k, v, AUTO_CREATE_PROPS + k));
      return p;
    }

    private void partitionBy(String routePrefix, String spec, String source) {
      if (spec != null && !spec.isBlank()) {
        set(routePrefix + RouteConfigDef.PARTITION_BY, spec, source);
      }
    }

    /**
     * The {@code iceberg.table.<table>.<setting>} keys, by table of {@code tables} (the longest
     * listed name that prefixes the key wins); unsupported settings are errors, keys of other
     * tables warnings (the Apache sink ignores them as well).
     */
    private Map<String, Map<String, String>> tableKeys(List<String> tables, boolean dynamic) {
      Map<String, Map<String, String>> byTable = new LinkedHashMap<>();
      for (Map.Entry<String, String> e : given.entrySet()) {
        String key = e.getKey();
        if (!key.startsWith(TABLE_PREFIX)) {
          continue;
        }
        handled.add(key);
        String rest = key.substring(TABLE_PREFIX.length());
        String table = null;
        for (String t : tables) {
          if (rest.startsWith(t + ".") && (table == null || t.length() > table.length())) {
            table = t;
          }
        }
        String setting =
            table != null
                ? rest.substring(table.length() + 1)
                : rest.substring(rest.lastIndexOf('.') + 1);
        switch (setting) {
          case "id-columns" ->
              error(
                  key,
                  "upserts into Iceberg tables are not supported here (and in the Apache sink "
                      + "id-columns never delete a row either); for upserts use a Paimon catalog "
                      + "with a primary-key table, or remove the key");
          case "commit-branch" ->
              error(
                  key,
                  "commits to a branch are not supported: this connector commits to the table's "
                      + "main branch; remove the key");
          case "route-regex", "partition-by" -> {
            if (dynamic && setting.equals("partition-by")) {
              error(
                  key,
                  "a partition spec per table is not supported with dynamic routing: every "
                      + "table created there gets "
                      + DEFAULT_PARTITION_BY);
            } else if (table != null) {
              byTable.computeIfAbsent(table, t -> new LinkedHashMap<>()).put(setting, e.getValue());
            } else {
              warnings.add(
                  key
                      + (dynamic
                          ? ": per-table routing keys do not apply to dynamic routing: ignored, "
                              + "as by the Apache sink"
                          : ": names no table of " + TABLES + ": ignored, as by the Apache sink"));
            }
          }
          default ->
              error(
                  key,
                  "is not a key of the Apache Iceberg sink: a table's keys are route-regex, "
                      + "partition-by, id-columns and commit-branch");
        }
      }
      return byTable;
    }

    private String tabularUpsert() {
      return "a key of the Tabular sink, which the Apache sink ignores: upserts into Iceberg "
          + "tables are not supported here; for upserts or CDC use a Paimon catalog with a "
          + "primary-key table (route input=debezium for Debezium records), or remove the key";
    }

    // ---- helpers ----

    private static String routeName(String table, List<String> taken) {
      String base = table.replaceAll("[^A-Za-z0-9_-]", "_");
      String name = base;
      for (int i = 2; taken.contains(name); i++) {
        name = base + "-" + i;
      }
      return name;
    }

    /** Sets our key from an Apache key unless the config sets ours too (then ours counts). */
    private void set(String ourKey, String value, String source) {
      if (given.containsKey(ourKey)) {
        if (!String.valueOf(given.get(ourKey)).equals(value)) {
          warnings.add(source + " maps to " + ourKey + ", which is set too: " + ourKey + " counts");
        }
        return;
      }
      out.put(ourKey, value);
      origins.putIfAbsent(ourKey, source);
    }

    private void setFrom(String apacheKey, String ourKey) {
      if (given.containsKey(apacheKey)) {
        handled.add(apacheKey);
        set(ourKey, given.get(apacheKey).trim(), apacheKey);
      }
    }

    private void notNeeded(String key, String why) {
      if (given.containsKey(key)) {
        handled.add(key);
        warnings.add(key + " is not needed here and is ignored: " + why);
      }
    }

    private void unsupported(String key, String why) {
      handled.add(key);
      String value = given.get(key);
      if (value != null && !value.isBlank() && !value.trim().equalsIgnoreCase("false")) {
        error(key, why);
      }
    }

    private boolean bool(String key, boolean otherwise) {
      String value = blankToNull(given.get(key));
      if (value == null) {
        return otherwise;
      }
      if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
        return Boolean.parseBoolean(value);
      }
      error(key, "'" + value + "' is not true or false");
      return otherwise;
    }

    private String value(String key, String otherwise) {
      String value = blankToNull(given.get(key));
      return value == null ? otherwise : value;
    }

    /** Keys under {@code prefix}, prefix removed; they count as handled. */
    private Map<String, String> withPrefix(String prefix) {
      Map<String, String> found = new LinkedHashMap<>();
      given.forEach(
          (k, v) -> {
            if (k.startsWith(prefix) && k.length() > prefix.length()) {
              handled.add(k);
              found.put(k.substring(prefix.length()), v);
            }
          });
      return found;
    }

    private void error(String key, String message) {
      errors.computeIfAbsent(key, k -> new ArrayList<>()).add(key + ": " + message);
    }
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
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
