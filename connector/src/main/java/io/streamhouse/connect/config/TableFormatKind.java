package io.streamhouse.connect.config;

import java.util.Locale;

/** The table format of a catalog ({@code catalog.<name>.format}). */
public enum TableFormatKind {
  ICEBERG,
  PAIMON;

  /** The word in a connector config. */
  public String configValue() {
    return name().toLowerCase(Locale.ROOT);
  }
}
