package io.streamhouse.connect.schema;

import java.util.Locale;

/**
 * How far a route lets record schemas change its tables ({@code route.<name>.schema-evolution}).
 */
public enum EvolutionMode {
  /** Never change a table; fields it lacks are ignored, values must fit its columns. */
  NONE,
  /** Add optional columns (top level and nested) for new fields. */
  ADD_COLUMNS,
  /**
   * Also widen int8 → int16 → int32 → int64, float → double, decimal precision, and required →
   * optional.
   */
  ADD_AND_WIDEN;

  public static EvolutionMode of(String value) {
    return valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
  }

  public String configValue() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
