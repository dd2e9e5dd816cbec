package io.streamhouse.connect.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keys renamed to the one key style (README, Configuration: dots separate groups, {@code -} joins
 * the words of one setting, durations end in Kafka's {@code .ms}); their old names are still
 * accepted, with a warning, and mean the same.
 */
public final class RenamedKeys {
  /** Old fixed key to new key. */
  static final Map<String, String> FIXED =
      Map.of(
          "max.open.files", SinkConfigDef.MAX_OPEN_FILES_CONFIG,
          "commit.handover.timeout.ms", SinkConfigDef.COMMIT_HANDOVER_TIMEOUT_MS_CONFIG,
          "lag.check.interval.ms", SinkConfigDef.LAG_CHECK_INTERVAL_MS_CONFIG,
          "control.signing.key", SinkConfigDef.CONTROL_SIGNING_KEY_CONFIG);

  /** {@code route.<name>.schema.evolution} is now {@code route.<name>.schema-evolution}. */
  private static final Pattern ROUTE_SCHEMA_EVOLUTION =
      Pattern.compile("(" + Pattern.quote(RouteConfigDef.PREFIX) + "[^.]+\\.)schema\\.evolution");

  private RenamedKeys() {}

  /**
   * {@code props} with every old key under its new name; {@code warn} gets (old, message) for each.
   * Where both names are set, the new one counts.
   */
  public static Map<String, String> apply(
      Map<String, String> props, BiConsumer<String, String> warn) {
    Map<String, String> out = new LinkedHashMap<>(props);
    for (Map.Entry<String, String> e : props.entrySet()) {
      String renamed = newName(e.getKey());
      if (renamed == null) {
        continue;
      }
      out.remove(e.getKey());
      if (props.containsKey(renamed)) {
        warn.accept(
            e.getKey(),
            "'" + e.getKey() + "' is the old name of '" + renamed + "', which is set too: ignored");
      } else {
        out.put(renamed, e.getValue());
        warn.accept(
            e.getKey(),
            "'" + e.getKey() + "' is deprecated: it is now '" + renamed + "' (same meaning)");
      }
    }
    return out;
  }

  /** The current name of an old key; null for any other key. */
  static String newName(String key) {
    String fixed = FIXED.get(key);
    if (fixed != null) {
      return fixed;
    }
    Matcher m = ROUTE_SCHEMA_EVOLUTION.matcher(key);
    return m.matches() ? m.group(1) + RouteConfigDef.SCHEMA_EVOLUTION : null;
  }
}
