package io.streamhouse.connect.config;

import static io.streamhouse.connect.config.IcebergSinkCompat.*;

import io.streamhouse.connect.schema.EvolutionMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Apache sink's table and routing keys ({@code iceberg.tables*}, {@code iceberg.table.<t>.*})
 * as routes. Part of {@link IcebergSinkCompat}.
 */
final class ApacheTableKeys extends ApacheKeysTranslation {
  ApacheTableKeys(ApacheKeysTranslation shared) {
    super(shared);
  }

  void tables(String catalog) {
    for (String key :
        List.of(
            TABLES,
            DYNAMIC,
            ROUTE_FIELD,
            DEFAULT_PARTITION_BY,
            AUTO_CREATE,
            EVOLVE_SCHEMA,
            FORCE_OPTIONAL,
            CASE_INSENSITIVE)) {
      handled.add(key);
    }
    List<String> tables = SinkConfigDef.names(given.get(TABLES));
    boolean dynamic = bool(DYNAMIC, false);
    String routeField = blankToNull(given.get(ROUTE_FIELD));
    boolean autoCreate = bool(AUTO_CREATE, false);
    boolean evolve = bool(EVOLVE_SCHEMA, false);
    if (bool(FORCE_OPTIONAL, false)) {
      error(
          FORCE_OPTIONAL,
          "true is not supported: columns follow the optionality of the record schema (new "
              + "columns from schema evolution are always optional); make the fields optional in "
              + "the producer's schema, or create the table beforehand with optional columns");
    }
    if (bool(CASE_INSENSITIVE, false)) {
      error(
          CASE_INSENSITIVE,
          "true is not supported: fields match columns by their exact name here, and a field "
              + "differing from a column only in case is rejected");
    }
    unsupported(
        DEFAULT_ID_COLUMNS,
        "upserts into Iceberg tables are not supported here (and in the Apache sink id-columns "
            + "never delete a row either); for upserts use a Paimon catalog with a primary-key "
            + "table, or remove the key");
    unsupported(
        DEFAULT_COMMIT_BRANCH,
        "commits to a branch are not supported: this connector commits to the table's main "
            + "branch; remove the key");
    unsupported("iceberg.tables.upsert-mode-enabled", tabularUpsert());
    unsupported("iceberg.tables.cdc-field", tabularUpsert());
    for (String key : given.keySet()) {
      if (key.startsWith(WRITE_PROPS)) {
        handled.add(key);
        String prop = key.substring(WRITE_PROPS.length());
        error(
            key,
            "writer settings are not overridden per connector here: the writers follow the "
                + "table's own properties ("
                + prop
                + " included). Set "
                + prop
                + " on the table, and for tables the connector creates as "
                + AUTO_CREATE_PROPS
                + prop);
      }
    }
    if (given.containsKey(SinkConfigDef.ROUTES_CONFIG)) {
      error(
          TABLES,
          "the Apache sink's table keys and this connector's 'routes' are both set: use one or "
              + "the other");
      return;
    }
    Map<String, String> tableProperties = withPrefix(AUTO_CREATE_PROPS);
    String defaultPartitionBy = given.get(DEFAULT_PARTITION_BY);
    if (dynamic) {
      if (!tables.isEmpty()) {
        error(
            DYNAMIC,
            "true together with "
                + TABLES
                + ": set either static tables or dynamic routing (the Apache sink refuses both)");
      }
      if (routeField == null) {
        error(DYNAMIC, "dynamic routing needs " + ROUTE_FIELD + ", the field naming the table");
        return;
      }
      String p = route(DYNAMIC_ROUTE, catalog, autoCreate, evolve, tableProperties);
      set(p + RouteConfigDef.TABLE_FIELD, routeField, ROUTE_FIELD);
      set(p + RouteConfigDef.TABLE_FIELD_QUALIFIED, "true", DYNAMIC);
      if (!given.containsKey(p + RouteConfigDef.TABLE_ALLOW_REGEX)) {
        warnings.add(
            "dynamic routing takes any table that "
                + routeField
                + " names, as the Apache sink does; set "
                + p
                + RouteConfigDef.TABLE_ALLOW_REGEX
                + " to allow only some");
      }
      set(p + RouteConfigDef.TABLE_ALLOW_REGEX, ".*", DYNAMIC);
      partitionBy(p, defaultPartitionBy, DEFAULT_PARTITION_BY);
      tableKeys(List.of(), true);
      return;
    }
    if (tables.isEmpty()) {
      error(
          TABLES,
          "no tables: list the destination tables in "
              + TABLES
              + ", or set "
              + DYNAMIC
              + "=true with "
              + ROUTE_FIELD);
      return;
    }
    Map<String, Map<String, String>> perTable = tableKeys(tables, false);
    List<String> routes = new ArrayList<>();
    for (String table : tables) {
      Map<String, String> settings = perTable.getOrDefault(table, Map.of());
      String regexKey = TABLE_PREFIX + table + ".route-regex";
      String regex = blankToNull(settings.get("route-regex"));
      if (routeField != null && regex == null) {
        warnings.add(
            "table "
                + table
                + " has no "
                + regexKey
                + " while "
                + ROUTE_FIELD
                + " is set: it receives no records, as in the Apache sink");
        continue;
      }
      if (routeField == null && regex != null) {
        warnings.add(
            regexKey + " applies only with " + ROUTE_FIELD + ": every record goes to " + table);
      }
      String routeName = routeName(table, routes);
      routes.add(routeName);
      String p = route(routeName, catalog, autoCreate, evolve, tableProperties);
      set(p + RouteConfigDef.TABLE, table, TABLES);
      if (routeField != null) {
        set(p + RouteConfigDef.MATCH_FIELD, routeField, ROUTE_FIELD);
        set(p + RouteConfigDef.MATCH_REGEX, regex, regexKey);
      }
      String partitionKey = TABLE_PREFIX + table + ".partition-by";
      if (settings.containsKey("partition-by")) {
        partitionBy(p, settings.get("partition-by"), partitionKey);
      } else {
        partitionBy(p, defaultPartitionBy, DEFAULT_PARTITION_BY);
      }
    }
    if (routes.isEmpty()) {
      error(
          ROUTE_FIELD,
          "no table in "
              + TABLES
              + " has a route-regex (iceberg.table.<table>.route-regex), so no record would be "
              + "written");
      return;
    }
    set(SinkConfigDef.ROUTES_CONFIG, String.join(",", routes), TABLES);
  }

  /** The keys every route of the translation shares; returns the route's key prefix. */
  private String route(
      String name,
      String catalog,
      boolean autoCreate,
      boolean evolve,
      Map<String, String> tableProperties) {
    String p = RouteConfigDef.PREFIX + name + ".";
    if (DYNAMIC_ROUTE.equals(name)) {
      set(SinkConfigDef.ROUTES_CONFIG, name, DYNAMIC);
    }
    if (given.containsKey(SinkConfigValidator.TOPICS_CONFIG)) {
      set(p + RouteConfigDef.TOPICS, given.get(SinkConfigValidator.TOPICS_CONFIG), "topics");
    }
    if (given.containsKey(SinkConfigValidator.TOPICS_REGEX_CONFIG)
        && !given.get(SinkConfigValidator.TOPICS_REGEX_CONFIG).isBlank()) {
      set(
          p + RouteConfigDef.TOPICS_REGEX,
          given.get(SinkConfigValidator.TOPICS_REGEX_CONFIG),
          "topics.regex");
    }
    set(p + RouteConfigDef.CATALOG, catalog, CATALOG_NAME);
    set(p + RouteConfigDef.AUTO_CREATE, Boolean.toString(autoCreate), AUTO_CREATE);
    set(
        p + RouteConfigDef.SCHEMA_EVOLUTION,
        (evolve ? EvolutionMode.ADD_AND_WIDEN : EvolutionMode.NONE).configValue(),
        EVOLVE_SCHEMA);
    tableProperties.forEach(
        (k, v) -> set(p + RouteConfigDef.TABLE_PROPERTY_PREFIX + k, v, AUTO_CREATE_PROPS + k));
    return p;
  }

  private void partitionBy(String routePrefix, String spec, String source) {
    if (spec != null && !spec.isBlank()) {
      set(routePrefix + RouteConfigDef.PARTITION_BY, spec, source);
    }
  }

  /**
   * The {@code iceberg.table.<table>.<setting>} keys, by table of {@code tables} (the longest
   * listed name that prefixes the key wins); unsupported settings are errors, keys of other tables
   * warnings (the Apache sink ignores them as well).
   */
  private Map<String, Map<String, String>> tableKeys(List<String> tables, boolean dynamic) {
    Map<String, Map<String, String>> byTable = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : given.entrySet()) {
      String key = e.getKey();
      if (!key.startsWith(TABLE_PREFIX)) {
        continue;
      }
      handled.add(key);
      String rest = key.substring(TABLE_PREFIX.length());
      String table = null;
      for (String t : tables) {
        if (rest.startsWith(t + ".") && (table == null || t.length() > table.length())) {
          table = t;
        }
      }
      String setting =
          table != null
              ? rest.substring(table.length() + 1)
              : rest.substring(rest.lastIndexOf('.') + 1);
      switch (setting) {
        case "id-columns" ->
            error(
                key,
                "upserts into Iceberg tables are not supported here (and in the Apache sink "
                    + "id-columns never delete a row either); for upserts use a Paimon catalog "
                    + "with a primary-key table, or remove the key");
        case "commit-branch" ->
            error(
                key,
                "commits to a branch are not supported: this connector commits to the table's "
                    + "main branch; remove the key");
        case "route-regex", "partition-by" -> {
          if (dynamic && setting.equals("partition-by")) {
            error(
                key,
                "a partition spec per table is not supported with dynamic routing: every "
                    + "table created there gets "
                    + DEFAULT_PARTITION_BY);
          } else if (table != null) {
            byTable.computeIfAbsent(table, t -> new LinkedHashMap<>()).put(setting, e.getValue());
          } else {
            warnings.add(
                key
                    + (dynamic
                        ? ": per-table routing keys do not apply to dynamic routing: ignored, "
                            + "as by the Apache sink"
                        : ": names no table of " + TABLES + ": ignored, as by the Apache sink"));
          }
        }
        default ->
            error(
                key,
                "is not a key of the Apache Iceberg sink: a table's keys are route-regex, "
                    + "partition-by, id-columns and commit-branch");
      }
    }
    return byTable;
  }

  private String tabularUpsert() {
    return "a key of the Tabular sink, which the Apache sink ignores: upserts into Iceberg "
        + "tables are not supported here; for upserts or CDC use a Paimon catalog with a "
        + "primary-key table (route input=debezium for Debezium records), or remove the key";
  }
}
