package io.streamhouse.connect.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The keys of a take-over from the Apache Iceberg Kafka Connect sink (package {@code migration}),
 * part of {@link SinkConfigDef}.
 */
public final class MigrationConfigDef {
  public static final String GROUP = "Migration";

  public static final String CONTROL_TOPIC_CONFIG = "migration.apache-iceberg.control-topic";
  static final String CONTROL_TOPIC_DOC =
      "Set when this connector takes over Iceberg tables from the Apache Iceberg Kafka Connect sink "
          + "(the same connector name, connector.class changed): that sink's iceberg.control.topic. "
          + "At its start the coordinator reads it and commits, exactly once, the files that sink "
          + "had reported but not yet committed (their source offsets are already in the consumer "
          + "group, so their records are not read again). Empty (the default): no take-over.";

  public static final String GROUP_ID_CONFIG = "migration.apache-iceberg.group-id";
  static final String GROUP_ID_DOC =
      "The Apache sink's iceberg.connect.group-id. Empty (the default): connect-<connector name>, "
          + "that sink's default.";

  public static final String CATALOG_CONFIG = "migration.apache-iceberg.catalog";
  static final String CATALOG_DOC =
      "The catalog (one of catalogs, an Iceberg one) of the tables taken over from the Apache sink. "
          + "Empty (the default): the only Iceberg catalog.";

  private MigrationConfigDef() {}

  /** {@code def} with the migration keys added. */
  static ConfigDef define(ConfigDef def) {
    return def.define(
            CONTROL_TOPIC_CONFIG,
            Type.STRING,
            "",
            Importance.LOW,
            CONTROL_TOPIC_DOC,
            GROUP,
            1,
            Width.MEDIUM,
            "Apache sink's control topic")
        .define(
            GROUP_ID_CONFIG,
            Type.STRING,
            "",
            Importance.LOW,
            GROUP_ID_DOC,
            GROUP,
            2,
            Width.MEDIUM,
            "Apache sink's group id")
        .define(
            CATALOG_CONFIG,
            Type.STRING,
            "",
            Importance.LOW,
            CATALOG_DOC,
            GROUP,
            3,
            Width.SHORT,
            "Catalog of the taken-over tables");
  }
}
