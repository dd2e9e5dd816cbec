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
 * Renders the configuration reference (Markdown) from {@link SinkConfigDef}. It is the first part
 * of {@code docs/configuration.md}, up to {@link #END_OF_GENERATED}; what follows that line is
 * written by hand and kept when the page is regenerated with {@code ./mvnw -q -pl connector compile
 * exec:java@config-docs}. A test keeps the page current; the plugin archive ships it as {@code
 * doc/configuration.md}.
 */
public final class ConfigReference {
  /** The line that ends the generated part of the page; the hand-written part follows it. */
  public static final String END_OF_GENERATED =
      "<!-- End of the generated reference: the part above is written by ConfigReference, the part"
          + " below by hand. -->";

  private ConfigReference() {}

  /** Prints the reference, or with a file argument regenerates that page's generated part. */
  public static void main(String[] args) throws IOException {
    if (args.length == 0) {
      System.out.print(render());
    } else {
      Path page = Path.of(args[0]);
      String existing =
          Files.exists(page) ? Files.readString(page, StandardCharsets.UTF_8) : END_OF_GENERATED;
      Files.writeString(page, page(existing), StandardCharsets.UTF_8);
    }
  }

  /** {@code existing} with its generated part (everything before the marker) rendered anew. */
  public static String page(String existing) {
    int marker = existing.indexOf(END_OF_GENERATED);
    String handWritten = marker < 0 ? "\n" : existing.substring(marker + END_OF_GENERATED.length());
    return render() + "\n" + END_OF_GENERATED + handWritten;
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
            "Generated from the connector's `ConfigDef` by `ConfigReference` (regenerate with"
                + " `./mvnw -q -pl connector compile exec:java@config-docs`); after the key tables"
                + " come how a config is validated and the style the keys follow.\n")
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
