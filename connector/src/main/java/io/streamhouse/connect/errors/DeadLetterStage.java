package io.streamhouse.connect.errors;

import java.util.Locale;

/** Where a record failed: the {@code stage} column of the dead-letter table. */
public enum DeadLetterStage {
  /** No route takes the record, or the table it names is not allowed. */
  ROUTE,
  /** The table cannot follow the record's schema (a rejected schema change). */
  SCHEMA,
  /** The table does not exist and may not be created (auto-create off). */
  TABLE,
  /** A value does not fit its column. */
  VALUE;

  /** The stage of {@code cause}, raised while writing (not routing) a record. */
  public static DeadLetterStage ofWrite(RecordConversionException cause) {
    if (cause instanceof SchemaChangeRejectedException) {
      return SCHEMA;
    }
    return cause instanceof TableUnavailableException ? TABLE : VALUE;
  }

  public String columnValue() {
    return name().toLowerCase(Locale.ROOT);
  }
}
