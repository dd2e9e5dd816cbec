package io.streamhouse.connect.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;

/**
 * Renders the configuration reference (Markdown) from {@link SinkConfigDef}. The committed copy,
 * {@code connector/src/main/dist/doc/configuration.md}, is kept current by a test; regenerate it
 * with {@code ./mvnw -q -pl connector compile exec:java@config-docs}.
 */
public final class ConfigReference {
  private ConfigReference() {}

  public static void main(String[] args) throws IOException {
    String markdown = render();
    if (args.length == 0) {
      System.out.print(markdown);
    } else {
      Files.writeString(Path.of(args[0]), markdown, StandardCharsets.UTF_8);
    }
  }

  /** The whole reference: the connector's keys, then the templates of a catalog and of a route. */
  public static String render() {
    ConfigDef all = new ConfigDef(SinkConfigDef.CONFIG);
    CatalogConfigDef.forName("<name>").configKeys().values().forEach(all::define);
    RouteConfigDef.forName("<name>").configKeys().values().forEach(all::define);
    return render(all);
  }

  /** The reference as Markdown: one section per group, one row per key, in declaration order. */
  public static String render(ConfigDef def) {
    StringBuilder out = new StringBuilder();
    out.append("# Configuration reference\n\n")
        .append(
            "Generated from the connector's `ConfigDef` by `ConfigReference`; do not edit by hand.\n")
        .append("Besides these keys the connector takes Kafka Connect's own sink settings ")
        .append(
            "(`topics`, `topics.regex`, `errors.tolerance`, `errors.deadletterqueue.topic.name`, ")
        .append("converters, transforms).\n\n")
        .append("Catalogs and routes are named: `catalogs=lake` brings the keys `catalog.lake.*`, ")
        .append(
            "`routes=orders` the keys `route.orders.*`. Every `catalog.<name>.*` key, declared or not, ")
        .append(
            "is also passed to the catalog (prefix removed); `route.<name>.table-property.*` keys are set ")
        .append(
            "on tables the route creates; `kafka.*` keys configure the connector's own Kafka clients.\n");
    for (Map.Entry<String, List<ConfigKey>> group : byGroup(def).entrySet()) {
      out.append("\n## ")
          .append(group.getKey())
          .append("\n\n")
          .append("| Key | Type | Default | Valid values | Importance | Description |\n")
          .append("|---|---|---|---|---|---|\n");
      for (ConfigKey key : group.getValue()) {
        out.append("| `")
            .append(key.name)
            .append("` | ")
            .append(key.type.name().toLowerCase(Locale.ROOT))
            .append(" | ")
            .append(cell(defaultOf(key)))
            .append(" | ")
            .append(cell(key.validator == null ? "" : key.validator.toString()))
            .append(" | ")
            .append(key.importance.name().toLowerCase(Locale.ROOT))
            .append(" | ")
            .append(cell(key.documentation))
            .append(" |\n");
      }
    }
    return out.toString();
  }

  private static Map<String, List<ConfigKey>> byGroup(ConfigDef def) {
    Map<String, List<ConfigKey>> groups = new LinkedHashMap<>();
    for (String group : def.groups()) {
      groups.put(group, new ArrayList<>());
    }
    for (ConfigKey key : def.configKeys().values()) {
      if (key.internalConfig) {
        continue;
      }
      groups
          .computeIfAbsent(key.group == null ? "Other" : key.group, g -> new ArrayList<>())
          .add(key);
    }
    groups
        .values()
        .forEach(keys -> keys.sort((a, b) -> Integer.compare(a.orderInGroup, b.orderInGroup)));
    groups.values().removeIf(List::isEmpty);
    return groups;
  }

  private static String defaultOf(ConfigKey key) {
    if (!key.hasDefault()) {
      return "(required)";
    }
    if (key.defaultValue == null) {
      return "null";
    }
    if (key.type == ConfigDef.Type.PASSWORD) {
      return "[hidden]";
    }
    Object value = key.defaultValue;
    String text =
        value instanceof List<?> list
            ? String.join(",", list.stream().map(String::valueOf).toList())
            : String.valueOf(value);
    return text.isEmpty() ? "\"\"" : "`" + text + "`";
  }

  private static String cell(String text) {
    return text == null ? "" : text.replace("|", "\\|").replace("\n", " ");
  }
}
