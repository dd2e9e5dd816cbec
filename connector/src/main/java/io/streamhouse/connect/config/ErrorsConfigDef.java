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
      "With errors.tolerance=all: the Iceberg table that takes every record the connector cannot "
          + "write (no route, a rejected schema change, a value that does not fit), with its topic, "
          + "partition, offset, key, value, headers, the table it was meant for, the stage and the "
          + "error; committed with the other tables, exactly once. <catalog>.<namespace>.<table>, "
          + "or <namespace>.<table> when there is one catalog; created if missing. Empty: none.";

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
        "Dead-letter table");
  }
}
