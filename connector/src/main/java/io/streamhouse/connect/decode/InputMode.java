package io.streamhouse.connect.decode;

import java.util.Locale;

/** What a record of a route means ({@code route.<name>.input}). */
public enum InputMode {
  /** The value is the row (insert or replace); a tombstone deletes by key. */
  UPSERT,
  /** Debezium change events, enveloped or flattened; a tombstone deletes by key. */
  DEBEZIUM;

  /** The word in a connector config. */
  public String configValue() {
    return name().toLowerCase(Locale.ROOT);
  }
}
