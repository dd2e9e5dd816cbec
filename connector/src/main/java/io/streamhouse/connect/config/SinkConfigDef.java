package io.streamhouse.connect.config;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** Every configuration key of the connector, declared once, with docs, groups and validators. */
public final class SinkConfigDef {
  public static final String TABLES_GROUP = "Tables";
  public static final String COMMIT_GROUP = "Commit";
  public static final String MONITOR_GROUP = "Monitoring";

  public static final String CATALOGS_CONFIG = "catalogs";
  static final String CATALOGS_DOC =
      "Names of the catalogs the connector writes to. Each is configured under catalog.<name>.*";

  public static final String ROUTES_CONFIG = "routes";
  static final String ROUTES_DOC =
      "Names of the routes from topics to tables, configured under route.<name>.*. A record goes "
          + "to every route whose topics match its topic; a record no route takes is an error.";

  public static final String MAX_OPEN_FILES_CONFIG = "max-open-files";
  static final String MAX_OPEN_FILES_DOC =
      "Iceberg data files a task keeps open at once over all its tables and partitions (file handles). "
          + "Past it, the open file holding the most memory is closed early. While a commit closes the "
          + "previous files, as many new ones may be open.";
  static final int MAX_OPEN_FILES_DEFAULT = 2_000;

  public static final String ICEBERG_WRITE_BUFFER_BYTES_CONFIG = "iceberg.write-buffer-bytes";
  static final String ICEBERG_WRITE_BUFFER_BYTES_DOC =
      "Memory that the open Iceberg data files of a task may hold over all its tables and partitions "
          + "(rows are charged by their estimated raw size, plus a few KB per open file). When it is "
          + "full, the file holding the most is closed early, so a task fanning out to many tables writes "
          + "files of a fair share of this budget, not one file per record, and memory does not grow with "
          + "the number of tables. A file is otherwise cut at the table's write.target-file-size-bytes "
          + "or at the commit.";
  static final long ICEBERG_WRITE_BUFFER_BYTES_DEFAULT = 128L * 1024 * 1024;

  public static final String PAIMON_WRITE_BUFFER_BYTES_CONFIG = "paimon.write-buffer-bytes";
  static final String PAIMON_WRITE_BUFFER_BYTES_DOC =
      "Heap memory that all Paimon writers of a task share (one pool per task and catalog). When it "
          + "is full the writer holding the most memory sorts and spills its buffer, so many tables in "
          + "one task do not exhaust the heap.";
  static final long PAIMON_WRITE_BUFFER_BYTES_DEFAULT = 128L * 1024 * 1024;

  public static final String PAIMON_SPILL_DIR_CONFIG = "paimon.spill-dir";
  static final String PAIMON_SPILL_DIR_DOC =
      "Local directory where Paimon writers spill sorted buffers and lookup files; empty means the "
          + "JVM's java.io.tmpdir. Each task uses its own sub-directory.";

  public static final String COMMIT_INTERVAL_MS_CONFIG = "commit.interval.ms";
  static final String COMMIT_INTERVAL_MS_DOC =
      "How often the coordinator (in task 0) starts a commit round. Each round commits one snapshot "
          + "per table that received data, carrying the Kafka offsets it covers.";
  static final long COMMIT_INTERVAL_MS_DEFAULT = 60_000L;

  public static final String COMMIT_TIMEOUT_MS_CONFIG = "commit.timeout.ms";
  static final String COMMIT_TIMEOUT_MS_DOC =
      "How long the coordinator waits for every assigned topic-partition to report in a commit "
          + "round before it commits what has arrived (a partial commit).";
  static final long COMMIT_TIMEOUT_MS_DEFAULT = 30_000L;

  public static final String COMMIT_HANDOVER_TIMEOUT_MS_CONFIG = "commit.handover-timeout.ms";
  static final String COMMIT_HANDOVER_TIMEOUT_MS_DOC =
      "When a task loses partitions (a rebalance, or its stop), it hands in what it has written as "
          + "batches and waits up to this long for the coordinator to commit them, so that the next owner "
          + "of a partition skips those records instead of writing them again. Where the last commit round "
          + "took longer than half of this, the task waits up to twice that round, but not past 4.5 s "
          + "unless this is higher. If the wait runs out, the "
          + "task drops its uncommitted work and the records are written again. A stopping task whose "
          + "batches the next owners can read on after (Paimon tables with fixed buckets, Iceberg append "
          + "tables) waits at most "
          + "1 s, for a round to take them, not for their commit. Keep it below the worker's "
          + "task.shutdown.graceful.timeout.ms (5 s by default); 0 turns the hand-over off.";
  static final long COMMIT_HANDOVER_TIMEOUT_MS_DEFAULT = 4_000L;

  public static final String COMMIT_PARALLELISM_CONFIG = "commit.parallelism";
  static final String COMMIT_PARALLELISM_DOC =
      "How many tables the coordinator commits at the same time in a round, and how many tables' files"
          + " each task closes at the same time when it answers a commit request (closing writes the"
          + " rows a table held and the files' footers, or waits for their uploads).";
  static final int COMMIT_PARALLELISM_DEFAULT = 4;

  public static final String LAG_CHECK_INTERVAL_MS_CONFIG = "lag.check-interval.ms";
  static final String LAG_CHECK_INTERVAL_MS_DOC =
      "How often task 0 compares, per topic-partition, the connector's committed offset with the log "
          + "start and end offsets and the topic's retention, and publishes the lag metrics.";
  static final long LAG_CHECK_INTERVAL_MS_DEFAULT = 30_000L;

  public static final String LAG_ON_DATA_LOSS_CONFIG = "lag.on-data-loss";
  static final String LAG_ON_DATA_LOSS_DOC =
      "What happens when Kafka deleted records before the sink read them (the log start passed the "
          + "committed offset): warn (count them in data-loss-records-total, log an ERROR naming the "
          + "partition and offsets, go on) or fail (the same, then fail the task so the connector stops "
          + "with that message).";

  public static final String CONTROL_TOPIC_CONFIG = "control.topic";
  static final String CONTROL_TOPIC_DOC =
      "Topic that carries the commit protocol's events between the tasks and the coordinator. It "
          + "holds nothing durable, is created with a short retention if missing, and must not be one "
          + "of the topics the connector sinks.";
  public static final String CONTROL_TOPIC_DEFAULT = "streamhouse-control";

  public static final String CONTROL_SIGNING_KEY_CONFIG = "control.signing-key";
  static final String CONTROL_SIGNING_KEY_DOC =
      "Key of the HMAC-SHA256 that every control event carries, so that the tasks and the coordinator take "
          + "events only from this connector's tasks. Empty (the default): the connector derives the key from its "
          + "whole configuration (SHA-256 over every key and value, secrets included) and hands it to its tasks in "
          + "their configurations, which Connect stores in its config topic and shows to whoever may read task "
          + "configurations over the REST API; whoever can read or guess the configuration can derive it too. Set "
          + "it (at least 16 characters, best through a config provider) to keep the key out of the config topic "
          + "and to rotate it on your schedule: changing it restarts the connector and its tasks.";

  /** Set by the connector in each task's configuration; not a user setting. */
  public static final String TASK_ID_CONFIG = "task.id";

  /**
   * Test-only fault injection: the worker JVM halts (as kill -9 would) when a task reaches this
   * point of the commit protocol. Never set it in production.
   */
  public static final String HALT_AT_CONFIG = "streamhouse.test.halt-at";

  /**
   * The worker JVM system property that allows {@link #HALT_AT_CONFIG}: {@code
   * -Dstreamhouse.fault-injection=enabled}, set by the e2e harness. Without it a connector config
   * cannot arm fault injection (it could otherwise halt a worker that other connectors share).
   */
  public static final String FAULT_INJECTION_PROPERTY = "streamhouse.fault-injection";

  public static final ConfigDef CONFIG = build();

  private SinkConfigDef() {}

  /** The static keys plus the keys of every catalog and route that {@code props} names. */
  public static ConfigDef enriched(Map<String, String> props) {
    ConfigDef def = new ConfigDef(CONFIG);
    for (String catalog : names(props.get(CATALOGS_CONFIG))) {
      CatalogConfigDef.forName(catalog).configKeys().values().forEach(def::define);
    }
    for (String route : names(props.get(ROUTES_CONFIG))) {
      RouteConfigDef.forName(route).configKeys().values().forEach(def::define);
    }
    return def;
  }

  /** The names of a comma-separated list, trimmed, without blanks and repeats. */
  public static List<String> names(String list) {
    if (list == null || list.isBlank()) {
      return List.of();
    }
    return Arrays.stream(list.split(","))
        .map(String::trim)
        .filter(s -> !s.isEmpty())
        .distinct()
        .toList();
  }

  private static ConfigDef build() {
    int order = 0;
    ConfigDef def =
        new ConfigDef()
            .define(
                CATALOGS_CONFIG,
                Type.LIST,
                ConfigDef.NO_DEFAULT_VALUE,
                ConfigValidators.NAMES,
                Importance.HIGH,
                CATALOGS_DOC,
                TABLES_GROUP,
                ++order,
                Width.LONG,
                "Catalogs")
            .define(
                ROUTES_CONFIG,
                Type.LIST,
                ConfigDef.NO_DEFAULT_VALUE,
                ConfigValidators.NAMES,
                Importance.HIGH,
                ROUTES_DOC,
                TABLES_GROUP,
                ++order,
                Width.LONG,
                "Routes")
            .define(
                MAX_OPEN_FILES_CONFIG,
                Type.INT,
                MAX_OPEN_FILES_DEFAULT,
                Range.atLeast(1),
                Importance.LOW,
                MAX_OPEN_FILES_DOC,
                TABLES_GROUP,
                ++order,
                Width.SHORT,
                "Max open files")
            .define(
                ICEBERG_WRITE_BUFFER_BYTES_CONFIG,
                Type.LONG,
                ICEBERG_WRITE_BUFFER_BYTES_DEFAULT,
                Range.atLeast(1024L * 1024),
                Importance.LOW,
                ICEBERG_WRITE_BUFFER_BYTES_DOC,
                TABLES_GROUP,
                ++order,
                Width.SHORT,
                "Iceberg write buffer (bytes)")
            .define(
                PAIMON_WRITE_BUFFER_BYTES_CONFIG,
                Type.LONG,
                PAIMON_WRITE_BUFFER_BYTES_DEFAULT,
                Range.atLeast(8L * 1024 * 1024),
                Importance.LOW,
                PAIMON_WRITE_BUFFER_BYTES_DOC,
                TABLES_GROUP,
                ++order,
                Width.SHORT,
                "Paimon write buffer (bytes)")
            .define(
                PAIMON_SPILL_DIR_CONFIG,
                Type.STRING,
                "",
                Importance.LOW,
                PAIMON_SPILL_DIR_DOC,
                TABLES_GROUP,
                ++order,
                Width.LONG,
                "Paimon spill directory");
    // Between the tables' keys and the commit's: the reference lists the groups in the order their
    // first keys are declared.
    KafkaClientsConfigDef.define(def);
    def.define(
            COMMIT_INTERVAL_MS_CONFIG,
            Type.LONG,
            COMMIT_INTERVAL_MS_DEFAULT,
            Range.atLeast(100L),
            Importance.HIGH,
            COMMIT_INTERVAL_MS_DOC,
            COMMIT_GROUP,
            ++order,
            Width.SHORT,
            "Commit interval (ms)")
        .define(
            COMMIT_TIMEOUT_MS_CONFIG,
            Type.LONG,
            COMMIT_TIMEOUT_MS_DEFAULT,
            Range.atLeast(100L),
            Importance.MEDIUM,
            COMMIT_TIMEOUT_MS_DOC,
            COMMIT_GROUP,
            ++order,
            Width.SHORT,
            "Commit timeout (ms)")
        .define(
            COMMIT_HANDOVER_TIMEOUT_MS_CONFIG,
            Type.LONG,
            COMMIT_HANDOVER_TIMEOUT_MS_DEFAULT,
            Range.between(0L, 600_000L),
            Importance.LOW,
            COMMIT_HANDOVER_TIMEOUT_MS_DOC,
            COMMIT_GROUP,
            ++order,
            Width.SHORT,
            "Hand-over timeout (ms)")
        .define(
            COMMIT_PARALLELISM_CONFIG,
            Type.INT,
            COMMIT_PARALLELISM_DEFAULT,
            Range.between(1, 64),
            Importance.LOW,
            COMMIT_PARALLELISM_DOC,
            COMMIT_GROUP,
            ++order,
            Width.SHORT,
            "Commit parallelism")
        .define(
            CONTROL_TOPIC_CONFIG,
            Type.STRING,
            CONTROL_TOPIC_DEFAULT,
            ConfigValidators.TOPIC_NAME,
            Importance.MEDIUM,
            CONTROL_TOPIC_DOC,
            COMMIT_GROUP,
            ++order,
            Width.MEDIUM,
            "Control topic")
        .define(
            CONTROL_SIGNING_KEY_CONFIG,
            Type.PASSWORD,
            null,
            ConfigValidators.SIGNING_KEY,
            Importance.LOW,
            CONTROL_SIGNING_KEY_DOC,
            COMMIT_GROUP,
            ++order,
            Width.LONG,
            "Control-event signing key")
        .define(
            LAG_CHECK_INTERVAL_MS_CONFIG,
            Type.LONG,
            LAG_CHECK_INTERVAL_MS_DEFAULT,
            Range.atLeast(500L),
            Importance.LOW,
            LAG_CHECK_INTERVAL_MS_DOC,
            MONITOR_GROUP,
            1,
            Width.SHORT,
            "Lag check interval (ms)")
        .define(
            LAG_ON_DATA_LOSS_CONFIG,
            Type.STRING,
            DataLossAction.WARN.configValue(),
            ConfigWords.oneOf(DataLossAction.class),
            Importance.MEDIUM,
            LAG_ON_DATA_LOSS_DOC,
            MONITOR_GROUP,
            2,
            Width.SHORT,
            "On data loss")
        .defineInternal(
            TASK_ID_CONFIG,
            Type.INT,
            0,
            Range.atLeast(0),
            Importance.LOW,
            "Index of the task, set by the connector; task 0 runs the coordinator.")
        .defineInternal(
            HALT_AT_CONFIG,
            Type.STRING,
            "",
            null,
            Importance.LOW,
            "Test-only fault injection point (see FaultInjection).");
    return TransactionsConfigDef.define(
        ErrorsConfigDef.define(MigrationConfigDef.define(MaintenanceConfigDef.define(def))));
  }
}
