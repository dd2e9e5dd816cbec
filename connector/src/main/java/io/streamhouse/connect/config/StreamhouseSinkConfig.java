package io.streamhouse.connect.config;

import io.streamhouse.connect.protocol.TableId;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.types.Password;

/** Typed, validated view of a connector or task configuration, catalogs and routes included. */
public final class StreamhouseSinkConfig extends AbstractConfig {
  /** Connect puts the connector name into every connector and task configuration. */
  public static final String CONNECTOR_NAME_CONFIG = "name";

  private final List<CatalogSettings> catalogs;
  private final List<RouteSettings> routes;
  private final Optional<TableId> deadLetterTable;

  /**
   * {@code props} under this connector's keys (a config of another connector is translated before).
   */
  public StreamhouseSinkConfig(Map<String, String> props) {
    super(SinkConfigDef.enriched(props), props, false);
    List<String> catalogNames = getList(SinkConfigDef.CATALOGS_CONFIG);
    this.catalogs =
        catalogNames.stream().distinct().map(n -> CatalogSettings.from(n, this)).toList();
    this.routes =
        getList(SinkConfigDef.ROUTES_CONFIG).stream()
            .distinct()
            .map(n -> RouteSettings.from(n, this, catalogNames))
            .toList();
    String deadLetter = getString(ErrorsConfigDef.DEAD_LETTER_TABLE_CONFIG);
    this.deadLetterTable =
        deadLetter == null || deadLetter.isBlank()
            ? Optional.empty()
            : Optional.of(
                deadLetterTableOf(
                    deadLetter,
                    getString(ErrorsConfigDef.DEAD_LETTER_CATALOG_CONFIG),
                    catalogNames));
  }

  /** Name of the route that writes the dead-letter table (not a route of the user's). */
  public static final String DEAD_LETTER_ROUTE = "errors.deadletter";

  /**
   * {@code errors.deadletter.table} as a table id: {@code namespace[.namespace].table} in {@code
   * catalog} ({@code errors.deadletter.catalog}) when it is set; else {@code
   * catalog.namespace[.namespace].table}, or {@code namespace.table} in the only catalog.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static TableId deadLetterTableOf(String value, String catalog, List<String> catalogs) {
    String trimmed = value.trim();
    if (catalog != null && !catalog.isBlank()) {
      String named = catalog.trim();
      if (!catalogs.contains(named)) {
        throw new IllegalArgumentException(
            ErrorsConfigDef.DEAD_LETTER_CATALOG_CONFIG
                + " '"
                + named
                + "' is not one of the catalogs "
                + catalogs);
      }
      boolean catalogAgain = trimmed.startsWith(named + ".") && dots(trimmed) > 1;
      if (!trimmed.contains(".") || catalogAgain) {
        throw new IllegalArgumentException(
            "'"
                + value
                + "' does not name a table of catalog "
                + named
                + ", which "
                + ErrorsConfigDef.DEAD_LETTER_CATALOG_CONFIG
                + " names: write <namespace>.<table>, without the catalog");
      }
      return TableNames.parse(named, trimmed, "default");
    }
    int dot = trimmed.indexOf('.');
    String first = dot < 0 ? trimmed : trimmed.substring(0, dot);
    String rest = dot < 0 ? "" : trimmed.substring(dot + 1);
    if (catalogs.contains(first) && rest.contains(".")) {
      return TableNames.parse(first, rest, "default");
    }
    if (catalogs.size() == 1 && trimmed.contains(".")) {
      return TableNames.parse(catalogs.get(0), trimmed, "default");
    }
    throw new IllegalArgumentException(
        "'"
            + value
            + "' does not name a table of one of the catalogs "
            + catalogs
            + ": write <catalog>.<namespace>.<table> (or <namespace>.<table> with one catalog, or "
            + "with "
            + ErrorsConfigDef.DEAD_LETTER_CATALOG_CONFIG
            + ")");
  }

  private static long dots(String s) {
    return s.chars().filter(c -> c == '.').count();
  }

  /** Transaction-consistent CDC as configured (off unless transactions.topic is set). */
  public TransactionSettings transactions() {
    return TransactionSettings.from(this);
  }

  /** {@code errors.deadletter.table}, if set. */
  public Optional<TableId> deadLetterTable() {
    return deadLetterTable;
  }

  /**
   * The route that writes the dead-letter table: auto-create, no partitioning, new columns added (a
   * later version of the table's schema may add some).
   */
  public Optional<RouteSettings> deadLetterRoute() {
    return deadLetterTable.map(
        t -> {
          String p = RouteConfigDef.PREFIX + DEAD_LETTER_ROUTE + ".";
          Map<String, String> props = new HashMap<>();
          props.put(p + RouteConfigDef.CATALOG, t.catalog());
          props.put(p + RouteConfigDef.TABLE, t.qualifiedName());
          props.put(p + RouteConfigDef.AUTO_CREATE, "true");
          props.put(p + RouteConfigDef.SCHEMA_EVOLUTION, "add-columns");
          return RouteSettings.from(
              DEAD_LETTER_ROUTE,
              new AbstractConfig(RouteConfigDef.forName(DEAD_LETTER_ROUTE), props, false),
              List.of(t.catalog()));
        });
  }

  /**
   * True when the connector applies single message transforms: a transform may change a record's
   * topic, so the records of one Kafka partition may go to different tables.
   */
  public boolean transformsRecords() {
    Object transforms = originals().get("transforms");
    return transforms != null && !transforms.toString().isBlank();
  }

  public String connectorName() {
    Object name = originals().get(CONNECTOR_NAME_CONFIG);
    return name == null ? "unnamed" : name.toString();
  }

  public int taskId() {
    return getInt(SinkConfigDef.TASK_ID_CONFIG);
  }

  public List<CatalogSettings> catalogs() {
    return catalogs;
  }

  public CatalogSettings catalog(String name) {
    return catalogs.stream()
        .filter(c -> c.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("No catalog named " + name));
  }

  public List<RouteSettings> routes() {
    return routes;
  }

  public int maxOpenFiles() {
    return getInt(SinkConfigDef.MAX_OPEN_FILES_CONFIG);
  }

  public long icebergWriteBufferBytes() {
    return getLong(SinkConfigDef.ICEBERG_WRITE_BUFFER_BYTES_CONFIG);
  }

  public long paimonWriteBufferBytes() {
    return getLong(SinkConfigDef.PAIMON_WRITE_BUFFER_BYTES_CONFIG);
  }

  /** Where Paimon writers of task {@code taskId} spill. */
  public Path paimonSpillDir() {
    String dir = getString(SinkConfigDef.PAIMON_SPILL_DIR_CONFIG);
    Path base = Path.of(dir.isBlank() ? System.getProperty("java.io.tmpdir") : dir);
    return base.resolve("streamhouse-" + connectorName() + "-" + taskId());
  }

  public long lagCheckIntervalMs() {
    return getLong(SinkConfigDef.LAG_CHECK_INTERVAL_MS_CONFIG);
  }

  public boolean failOnDataLoss() {
    return ConfigWords.parse(DataLossAction.class, getString(SinkConfigDef.LAG_ON_DATA_LOSS_CONFIG))
        == DataLossAction.FAIL;
  }

  public MaintenanceSettings maintenance() {
    return MaintenanceSettings.from(this);
  }

  public long commitIntervalMs() {
    return getLong(SinkConfigDef.COMMIT_INTERVAL_MS_CONFIG);
  }

  public long commitTimeoutMs() {
    return getLong(SinkConfigDef.COMMIT_TIMEOUT_MS_CONFIG);
  }

  public long commitHandOverTimeoutMs() {
    return getLong(SinkConfigDef.COMMIT_HANDOVER_TIMEOUT_MS_CONFIG);
  }

  public int commitParallelism() {
    return getInt(SinkConfigDef.COMMIT_PARALLELISM_CONFIG);
  }

  /** The Apache Iceberg sink's control topic to take tables over from; empty: none. */
  public String apacheControlTopic() {
    return getString(MigrationConfigDef.CONTROL_TOPIC_CONFIG).trim();
  }

  /** The Apache Iceberg sink's Connect group id ({@code connect-<name>} unless set). */
  public String apacheGroupId() {
    String set = getString(MigrationConfigDef.GROUP_ID_CONFIG).trim();
    return set.isEmpty() ? "connect-" + connectorName() : set;
  }

  /** The catalog of the tables taken over from the Apache sink; empty: the only Iceberg one. */
  public String apacheCatalog() {
    return getString(MigrationConfigDef.CATALOG_CONFIG).trim();
  }

  public String controlTopic() {
    return getString(SinkConfigDef.CONTROL_TOPIC_CONFIG);
  }

  /** Settings of the connector's own Kafka clients: every {@code kafka.*} key, prefix removed. */
  public Map<String, Object> kafkaClientProps() {
    Map<String, Object> props = new HashMap<>();
    for (Map.Entry<String, Object> e :
        originalsWithPrefix(KafkaClientsConfigDef.PREFIX).entrySet()) {
      Object value =
          values().containsKey(KafkaClientsConfigDef.PREFIX + e.getKey())
              ? values().get(KafkaClientsConfigDef.PREFIX + e.getKey())
              : e.getValue();
      if (value instanceof Password pw) {
        value = pw.value();
      }
      if (value != null) {
        props.put(e.getKey(), value);
      }
    }
    return props;
  }

  /** The topic-partitions' topics this connector consumes: Connect's {@code topics}, if set. */
  public List<String> topics() {
    return SinkConfigDef.names((String) originals().get("topics"));
  }

  /** Connect's {@code topics.regex}, if set. */
  public String topicsRegex() {
    Object regex = originals().get("topics.regex");
    return regex == null || regex.toString().isBlank() ? null : regex.toString();
  }

  /** True when Connect's {@code errors.tolerance} is {@code all}: bad records go to the DLQ. */
  public boolean toleratesErrors() {
    Object tolerance = originals().get("errors.tolerance");
    return tolerance != null && tolerance.toString().trim().equalsIgnoreCase("all");
  }

  /**
   * The HMAC key of the control events: the user's, or the one the connector generated; empty if
   * neither.
   */
  public Optional<String> controlSigningKey() {
    Password key = getPassword(SinkConfigDef.CONTROL_SIGNING_KEY_CONFIG);
    return key == null || key.value() == null || key.value().isEmpty()
        ? Optional.empty()
        : Optional.of(key.value());
  }

  /** Test-only fault-injection point; empty in production. */
  public String haltAt() {
    return getString(SinkConfigDef.HALT_AT_CONFIG);
  }
}
