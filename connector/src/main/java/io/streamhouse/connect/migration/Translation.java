package io.streamhouse.connect.migration;

import io.streamhouse.connect.config.TranslatedConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the translation of an Apache Iceberg sink config gives: the config under our keys with where
 * each came from and the errors by key (for validation), and the warnings for the worker log.
 * Immutable.
 */
public record Translation(TranslatedConfig config, List<String> warnings) {
  public Translation {
    warnings = List.copyOf(warnings);
  }

  /** A config of ours, left as it is. */
  static Translation untranslated(Map<String, String> given) {
    return new Translation(TranslatedConfig.untranslated(given), List.of());
  }

  /**
   * The effects of the rules applied to {@code given}: its keys that are not the Apache sink's,
   * plus every key the rules map to unless the user set that key too (then the user's value counts,
   * with a warning when it differs); the refusals as errors by key, the warnings in order.
   */
  static Translation of(Map<String, String> given, List<Effect> effects) {
    Map<String, String> props = new LinkedHashMap<>();
    given.forEach(
        (k, v) -> {
          if (!ApacheKeys.isApacheKey(k)) {
            props.put(k, v);
          }
        });
    Map<String, String> origins = new LinkedHashMap<>();
    Map<String, List<String>> errors = new LinkedHashMap<>();
    List<String> warnings = new ArrayList<>();
    for (Effect effect : effects) {
      if (effect instanceof Effect.Mapped m) {
        if (!given.containsKey(m.ourKey())) {
          props.put(m.ourKey(), m.value());
          origins.putIfAbsent(m.ourKey(), m.from());
        } else if (!String.valueOf(given.get(m.ourKey())).equals(m.value())) {
          warnings.add(
              m.from()
                  + " maps to "
                  + m.ourKey()
                  + ", which is set too: "
                  + m.ourKey()
                  + " counts");
        }
      } else if (effect instanceof Effect.Warning w) {
        warnings.add(w.message());
      } else if (effect instanceof Effect.Refusal r) {
        errors.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.message());
      }
    }
    Map<String, List<String>> frozen = new LinkedHashMap<>();
    errors.forEach((k, v) -> frozen.put(k, List.copyOf(v)));
    return new Translation(
        new TranslatedConfig(given, Map.copyOf(props), origins, frozen), warnings);
  }

  /** The config under our keys. */
  public Map<String, String> props() {
    return config.props();
  }

  /** The translation's errors by key, each message starting with its key. */
  public Map<String, List<String>> errors() {
    return config.errors();
  }
}
