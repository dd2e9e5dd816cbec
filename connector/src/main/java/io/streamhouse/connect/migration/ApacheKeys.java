package io.streamhouse.connect.migration;

import io.streamhouse.connect.config.SinkConfigDef;

/**
 * The keys of the Apache Iceberg Kafka Connect sink (1.10 to 1.12) and the defaults it has where
 * this connector's differ: the names the translation's rules are written in.
 */
final class ApacheKeys {
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
  static final String UPSERT_MODE = "iceberg.tables.upsert-mode-enabled";
  static final String CDC_FIELD = "iceberg.tables.cdc-field";
  static final String AUTO_CREATE_PROPS = "iceberg.tables.auto-create-props.";
  static final String WRITE_PROPS = "iceberg.tables.write-props.";
  static final String TABLE_PREFIX = "iceberg.table.";
  static final String CATALOG_NAME = "iceberg.catalog";
  static final String CATALOG_PREFIX = "iceberg.catalog.";
  static final String CATALOG_TYPE = "iceberg.catalog.type";
  static final String CATALOG_IMPL = "iceberg.catalog.catalog-impl";
  static final String HADOOP_PREFIX = "iceberg.hadoop.";
  static final String HADOOP_CONF_DIR = "iceberg.hadoop-conf-dir";
  static final String KAFKA_PREFIX = "iceberg.kafka.";
  static final String KAFKA_BOOTSTRAP_SERVERS = "iceberg.kafka.bootstrap.servers";
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
  static final String DEFAULT_CONTROL_TOPIC = "control-iceberg";

  /** The Apache sink commits every 5 minutes by default; a switch keeps that cadence. */
  static final String DEFAULT_COMMIT_INTERVAL_MS = "300000";

  /** The route of dynamic routing ({@code iceberg.tables.dynamic-enabled}). */
  static final String DYNAMIC_ROUTE = "dynamic";

  private ApacheKeys() {}

  /** Whether {@code key} is one of the Apache sink's: an {@code iceberg.*} key that is not ours. */
  static boolean isApacheKey(String key) {
    return key.startsWith(PREFIX) && !SinkConfigDef.CONFIG.names().contains(key);
  }
}
