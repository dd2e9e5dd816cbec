package io.streamhouse.connect.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The state of one translation of an Apache Iceberg sink config ({@link IcebergSinkCompat}) and
 * what every group of its keys does with it: set our key from an Apache key, accept a key with a
 * warning, refuse one with an error on it. The groups ({@link ApacheCatalogKeys}, {@link
 * ApacheKafkaKeys}, {@link ApacheCommitKeys}, {@link ApacheTableKeys}) share this state.
 */
class ApacheKeysTranslation {
  final Map<String, String> given;
  final Supplier<Map<String, String>> workerProperties;
  final Map<String, String> out;
  final Map<String, List<String>> errors;
  final Map<String, String> origins;
  final List<String> warnings;
  final Set<String> handled;

  ApacheKeysTranslation(Map<String, String> given, Supplier<Map<String, String>> workerProperties) {
    this.given = given;
    this.workerProperties = workerProperties;
    this.out = new LinkedHashMap<>();
    this.errors = new LinkedHashMap<>();
    this.origins = new LinkedHashMap<>();
    this.warnings = new ArrayList<>();
    this.handled = new LinkedHashSet<>();
    given.forEach(
        (k, v) -> {
          if (!IcebergSinkCompat.isApacheKey(k)) {
            out.put(k, v);
          }
        });
  }

  /** A group of keys working on {@code shared}'s state. */
  ApacheKeysTranslation(ApacheKeysTranslation shared) {
    this.given = shared.given;
    this.workerProperties = shared.workerProperties;
    this.out = shared.out;
    this.errors = shared.errors;
    this.origins = shared.origins;
    this.warnings = shared.warnings;
    this.handled = shared.handled;
  }

  static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  static String routeName(String table, List<String> taken) {
    String base = table.replaceAll("[^A-Za-z0-9_-]", "_");
    String name = base;
    for (int i = 2; taken.contains(name); i++) {
      name = base + "-" + i;
    }
    return name;
  }

  /** Sets our key from an Apache key unless the config sets ours too (then ours counts). */
  void set(String ourKey, String value, String source) {
    if (given.containsKey(ourKey)) {
      if (!String.valueOf(given.get(ourKey)).equals(value)) {
        warnings.add(source + " maps to " + ourKey + ", which is set too: " + ourKey + " counts");
      }
      return;
    }
    out.put(ourKey, value);
    origins.putIfAbsent(ourKey, source);
  }

  void setFrom(String apacheKey, String ourKey) {
    if (given.containsKey(apacheKey)) {
      handled.add(apacheKey);
      set(ourKey, given.get(apacheKey).trim(), apacheKey);
    }
  }

  void notNeeded(String key, String why) {
    if (given.containsKey(key)) {
      handled.add(key);
      warnings.add(key + " is not needed here and is ignored: " + why);
    }
  }

  void unsupported(String key, String why) {
    handled.add(key);
    String value = given.get(key);
    if (value != null && !value.isBlank() && !value.trim().equalsIgnoreCase("false")) {
      error(key, why);
    }
  }

  boolean bool(String key, boolean otherwise) {
    String value = blankToNull(given.get(key));
    if (value == null) {
      return otherwise;
    }
    if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(value);
    }
    error(key, "'" + value + "' is not true or false");
    return otherwise;
  }

  String value(String key, String otherwise) {
    String value = blankToNull(given.get(key));
    return value == null ? otherwise : value;
  }

  /** Keys under {@code prefix}, prefix removed; they count as handled. */
  Map<String, String> withPrefix(String prefix) {
    Map<String, String> found = new LinkedHashMap<>();
    given.forEach(
        (k, v) -> {
          if (k.startsWith(prefix) && k.length() > prefix.length()) {
            handled.add(k);
            found.put(k.substring(prefix.length()), v);
          }
        });
    return found;
  }

  void error(String key, String message) {
    errors.computeIfAbsent(key, k -> new ArrayList<>()).add(key + ": " + message);
  }
}
