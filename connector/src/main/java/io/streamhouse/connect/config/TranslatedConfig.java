package io.streamhouse.connect.config;

import java.util.List;
import java.util.Map;

/**
 * A configuration as it reaches validation: the keys the user gave, the same configuration under
 * this connector's keys, and, when it was translated from another connector's keys (the Apache
 * Iceberg sink's), per key of ours the key it came from and the translation's own errors by key.
 * The validator reports an error of one of our keys on the key the user wrote.
 *
 * @param given the configuration as given
 * @param props the configuration under this connector's keys
 * @param origins our key to the given key it was translated from
 * @param errors the translation's errors by key, each message starting with its key
 */
public record TranslatedConfig(
    Map<String, String> given,
    Map<String, String> props,
    Map<String, String> origins,
    Map<String, List<String>> errors) {
  public TranslatedConfig {
    origins = Map.copyOf(origins);
    errors = Map.copyOf(errors);
  }

  /** A configuration written with this connector's keys: nothing translated. */
  public static TranslatedConfig untranslated(Map<String, String> props) {
    return new TranslatedConfig(props, props, Map.of(), Map.of());
  }

  /** The given key that {@code ourKey} was translated from, or null. */
  public String originOf(String ourKey) {
    return origins.get(ourKey);
  }
}
