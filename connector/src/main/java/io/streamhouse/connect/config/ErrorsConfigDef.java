package io.streamhouse.connect.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The connector's keys for bad records, beside Connect's own {@code errors.*}; part of {@link
 * SinkConfigDef}.
 */
public final class ErrorsConfigDef {
  public static final String GROUP = "Errors";

  public static final String DEAD_LETTER_TABLE_CONFIG = "errors.deadletter.table";
  static final String DEAD_LETTER_TABLE_DOC =
      "With errors.tolerance=all: the table that takes every record the connector cannot write "
          + "(no route, a rejected schema change, a value that does not fit), with its topic, "
          + "partition, offset, key, value, headers, the table it was meant for, the stage and the "
          + "error; committed with the other tables, exactly once. An Iceberg table, or a Paimon "
          + "append table (no primary key). <catalog>.<namespace>.<table>, or <namespace>.<table> "
          + "in the catalog errors.deadletter.catalog names or the only catalog; created if missing."
          + " Empty: none.";

  public static final String DEAD_LETTER_CATALOG_CONFIG = "errors.deadletter.catalog";
  static final String DEAD_LETTER_CATALOG_DOC =
      "The catalog (one of catalogs, Iceberg or Paimon) of errors.deadletter.table, which is then "
          + "<namespace>.<table> (one namespace level in a Paimon catalog). Empty (the default): "
          + "the catalog the table's first part names, or the only catalog.";

  private ErrorsConfigDef() {}

  /** {@code def} with the keys for bad records added. */
  static ConfigDef define(ConfigDef def) {
    return def.define(
            DEAD_LETTER_TABLE_CONFIG,
            Type.STRING,
            "",
            Importance.MEDIUM,
            DEAD_LETTER_TABLE_DOC,
            GROUP,
            1,
            Width.LONG,
            "Dead-letter table")
        .define(
            DEAD_LETTER_CATALOG_CONFIG,
            Type.STRING,
            "",
            Importance.LOW,
            DEAD_LETTER_CATALOG_DOC,
            GROUP,
            2,
            Width.SHORT,
            "Catalog of the dead-letter table");
  }
}
