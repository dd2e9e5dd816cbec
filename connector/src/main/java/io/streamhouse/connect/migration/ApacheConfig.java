package io.streamhouse.connect.migration;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A connector configuration as the rules of the translation read it: the keys as given (never
 * changed), read as the Apache sink reads them, and the Connect worker's properties, read only when
 * a rule asks for them.
 */
record ApacheConfig(Map<String, String> given, Supplier<Map<String, String>> workerProperties) {
  /** The value of {@code key} as given, or null. */
  String raw(String key) {
    return given.get(key);
  }

  boolean has(String key) {
    return given.containsKey(key);
  }

  /** The value of {@code key} trimmed, or {@code otherwise} when it is absent or blank. */
  String value(String key, String otherwise) {
    String value = blankToNull(given.get(key));
    return value == null ? otherwise : value;
  }

  /** {@code key} as a boolean; {@code otherwise} when it is absent, blank or not a boolean. */
  boolean bool(String key, boolean otherwise) {
    String value = blankToNull(given.get(key));
    return value == null || notABoolean(value) ? otherwise : Boolean.parseBoolean(value);
  }

  /** Why the value of {@code key} is not a boolean, if it is set and is not one. */
  Optional<String> booleanProblem(String key) {
    String value = blankToNull(given.get(key));
    return value != null && notABoolean(value)
        ? Optional.of("'" + value + "' is not true or false")
        : Optional.empty();
  }

  private static boolean notABoolean(String value) {
    return !value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false");
  }

  /** The given keys under {@code prefix} (longer than it), prefix removed. */
  Map<String, String> under(String prefix) {
    Map<String, String> found = new LinkedHashMap<>();
    given.forEach(
        (k, v) -> {
          if (k.startsWith(prefix) && k.length() > prefix.length()) {
            found.put(k.substring(prefix.length()), v);
          }
        });
    return found;
  }

  /** Connect's consumer group of the connector, {@code connect-<name>}. */
  String connectGroup() {
    return "connect-" + given.getOrDefault(StreamhouseSinkConfig.CONNECTOR_NAME_CONFIG, "");
  }

  static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
