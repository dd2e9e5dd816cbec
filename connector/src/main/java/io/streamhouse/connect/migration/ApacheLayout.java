package io.streamhouse.connect.migration;

import static io.streamhouse.connect.migration.ApacheKeys.*;

import io.streamhouse.connect.config.RouteConfigDef;
import io.streamhouse.connect.config.SinkConfigDef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What the Apache sink's catalog and table keys lay out, read once before the rules run: the name
 * of its one catalog, and the routes its tables become (one per table of {@code iceberg.tables}
 * that gets records, or the one route of dynamic routing). The rules fill these in key by key.
 *
 * @param catalog the catalog's name
 * @param dynamic whether {@code iceberg.tables.dynamic-enabled} is true
 * @param routeField {@code iceberg.tables.route-field}, or null
 * @param tables the tables of {@code iceberg.tables}
 * @param routes the routes, none when the keys do not make any (an error of some rule then)
 * @param unrouted tables that get no records: a route-field without their route-regex
 */
record ApacheLayout(
    String catalog,
    boolean dynamic,
    String routeField,
    List<String> tables,
    List<Route> routes,
    List<String> unrouted) {

  /** A catalog name of this connector. */
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]+");

  /**
   * One route: its name, its table (null for dynamic routing), and the key its partition spec comes
   * from (the table's own {@code partition-by}, else {@code default-partition-by}).
   */
  record Route(String name, String table, String partitionFrom) {
    /** {@code route.<name>.} */
    String prefix() {
      return RouteConfigDef.PREFIX + name + ".";
    }
  }

  static ApacheLayout of(ApacheConfig config) {
    String catalog = config.value(CATALOG_NAME, DEFAULT_CATALOG);
    if (!NAME.matcher(catalog).matches()) {
      catalog = DEFAULT_CATALOG;
    }
    boolean dynamic = config.bool(DYNAMIC, false);
    String routeField = ApacheConfig.blankToNull(config.raw(ROUTE_FIELD));
    List<String> tables = SinkConfigDef.names(config.raw(TABLES));
    List<Route> routes = new ArrayList<>();
    List<String> unrouted = new ArrayList<>();
    if (config.has(SinkConfigDef.ROUTES_CONFIG)) {
      return new ApacheLayout(catalog, dynamic, routeField, tables, routes, unrouted);
    }
    if (dynamic) {
      if (routeField != null) {
        routes.add(new Route(DYNAMIC_ROUTE, null, DEFAULT_PARTITION_BY));
      }
      return new ApacheLayout(catalog, true, routeField, tables, routes, unrouted);
    }
    ApacheLayout listed =
        new ApacheLayout(catalog, false, routeField, tables, List.of(), List.of());
    Map<String, Map<String, String>> settings = listed.tableSettings(config);
    List<String> names = new ArrayList<>();
    for (String table : tables) {
      Map<String, String> own = settings.getOrDefault(table, Map.of());
      if (routeField != null && ApacheConfig.blankToNull(own.get("route-regex")) == null) {
        unrouted.add(table);
        continue;
      }
      String name = routeName(table, names);
      names.add(name);
      String partitionFrom =
          own.containsKey("partition-by")
              ? TABLE_PREFIX + table + ".partition-by"
              : DEFAULT_PARTITION_BY;
      routes.add(new Route(name, table, partitionFrom));
    }
    return new ApacheLayout(catalog, false, routeField, tables, routes, unrouted);
  }

  /**
   * The table of {@code iceberg.tables} that the key {@code iceberg.table.<rest>} names: the
   * longest one that prefixes {@code rest}; null when none does, and always with dynamic routing.
   */
  String tableOf(String rest) {
    String table = null;
    if (!dynamic) {
      for (String t : tables) {
        if (rest.startsWith(t + ".") && (table == null || t.length() > table.length())) {
          table = t;
        }
      }
    }
    return table;
  }

  /** The setting that the key {@code iceberg.table.<rest>} names, after its table. */
  String settingOf(String rest) {
    String table = tableOf(rest);
    return table != null
        ? rest.substring(table.length() + 1)
        : rest.substring(rest.lastIndexOf('.') + 1);
  }

  /** The route of {@code table}, if it has one. */
  Optional<Route> routeOf(String table) {
    return routes.stream().filter(r -> table.equals(r.table())).findFirst();
  }

  /** {@code route-regex} and {@code partition-by} of each listed table, by table. */
  private Map<String, Map<String, String>> tableSettings(ApacheConfig config) {
    Map<String, Map<String, String>> byTable = new LinkedHashMap<>();
    config
        .under(TABLE_PREFIX)
        .forEach(
            (rest, value) -> {
              String table = tableOf(rest);
              String setting = settingOf(rest);
              if (table != null
                  && (setting.equals("route-regex") || setting.equals("partition-by"))) {
                byTable.computeIfAbsent(table, t -> new LinkedHashMap<>()).put(setting, value);
              }
            });
    return byTable;
  }

  /** A route name for {@code table}: its characters outside {@code A-Za-z0-9_-} replaced. */
  private static String routeName(String table, List<String> taken) {
    String base = table.replaceAll("[^A-Za-z0-9_-]", "_");
    String name = base;
    for (int i = 2; taken.contains(name); i++) {
      name = base + "-" + i;
    }
    return name;
  }
}
