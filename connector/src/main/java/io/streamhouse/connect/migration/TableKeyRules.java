package io.streamhouse.connect.migration;

import static io.streamhouse.connect.migration.ApacheKeys.*;

import io.streamhouse.connect.config.RouteConfigDef;
import io.streamhouse.connect.config.SinkConfigDef;
import io.streamhouse.connect.decode.Envelopes;
import io.streamhouse.connect.decode.InputMode;
import io.streamhouse.connect.schema.EvolutionMode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * The rules of the Apache sink's table and routing keys ({@code iceberg.tables*}, {@code
 * iceberg.table.<table>.*}): the routes of {@link ApacheLayout}, {@code route.<name>.*}, each
 * filled in by the keys that set it, and errors for what this connector does not support.
 */
final class TableKeyRules {
  private static final String BRANCHES =
      "commits to a branch are not supported: this connector commits to the table's main "
          + "branch; remove the key";
  static final List<KeyRule> RULES =
      List.of(
          KeyRule.key(TABLES, TableKeyRules::tables),
          KeyRule.key(DYNAMIC, TableKeyRules::dynamic),
          KeyRule.key(ROUTE_FIELD, TableKeyRules::routeField),
          KeyRule.key(
              AUTO_CREATE,
              booleanPerRoute(
                  RouteConfigDef.AUTO_CREATE,
                  in -> Boolean.toString(in.config().bool(AUTO_CREATE, false)))),
          KeyRule.key(
              EVOLVE_SCHEMA,
              booleanPerRoute(
                  RouteConfigDef.SCHEMA_EVOLUTION,
                  // Apache evolves nothing by default, ours would add and widen
                  in ->
                      (in.config().bool(EVOLVE_SCHEMA, false)
                              ? EvolutionMode.ADD_AND_WIDEN
                              : EvolutionMode.NONE)
                          .configValue())),
          KeyRule.key(DEFAULT_PARTITION_BY, TableKeyRules::defaultPartitionBy),
          KeyRule.under(
              AUTO_CREATE_PROPS,
              in -> perRoute(in, RouteConfigDef.TABLE_PROPERTY_PREFIX + in.rest(), in.value())),
          KeyRule.under(WRITE_PROPS, TableKeyRules::writeProps),
          KeyRule.refusedWhenTrue(
              FORCE_OPTIONAL,
              "columns follow the optionality of the record schema (new columns from schema "
                  + "evolution are always optional); make the fields optional in the producer's "
                  + "schema, or create the table beforehand with optional columns"),
          KeyRule.refusedWhenTrue(
              CASE_INSENSITIVE,
              "fields match columns by their exact name here, and a field differing from a "
                  + "column only in case is rejected"),
          KeyRule.key(DEFAULT_ID_COLUMNS, TableKeyRules::defaultIdColumns),
          KeyRule.refusedUnlessFalse(DEFAULT_COMMIT_BRANCH, BRANCHES),
          KeyRule.key(UPSERT_MODE, TableKeyRules::upsertMode),
          KeyRule.key(CDC_FIELD, TableKeyRules::cdcField),
          KeyRule.under(TABLE_PREFIX, TableKeyRules::tableKey));

  private TableKeyRules() {}

  /** Our {@code setting} of every route set to {@code value}, from {@code in}'s key. */
  private static List<Effect> perRoute(KeyRule.Input in, String setting, String value) {
    return in.layout().routes().stream()
        .<Effect>map(r -> new Effect.Mapped(r.prefix() + setting, value, in.key()))
        .toList();
  }

  /**
   * A boolean key (set or not) as our {@code setting} of every route, its value made by {@code
   * value}; an error when it is set and is not a boolean.
   */
  private static KeyRule.Translate booleanPerRoute(
      String setting, Function<KeyRule.Input, String> value) {
    return in -> {
      List<Effect> effects = new ArrayList<>(KeyRule.notABoolean(in));
      effects.addAll(perRoute(in, setting, value.apply(in)));
      return effects;
    };
  }

  /** {@code iceberg.tables}: one route per table, on the connector's topics. */
  private static List<Effect> tables(KeyRule.Input in) {
    ApacheLayout layout = in.layout();
    if (in.config().has(SinkConfigDef.ROUTES_CONFIG)) {
      return List.of(
          new Effect.Refusal(
              TABLES,
              "the Apache sink's table keys and this connector's 'routes' are both set: use one "
                  + "or the other"));
    }
    if (layout.dynamic()) {
      return List.of(); // the rule of dynamic-enabled
    }
    if (layout.tables().isEmpty()) {
      return List.of(
          new Effect.Refusal(
              TABLES,
              "no tables: list the destination tables in "
                  + TABLES
                  + ", or set "
                  + DYNAMIC
                  + "=true with "
                  + ROUTE_FIELD));
    }
    List<Effect> effects = new ArrayList<>();
    for (ApacheLayout.Route route : layout.routes()) {
      effects.addAll(routeTopics(in.config(), route));
      effects.add(new Effect.Mapped(route.prefix() + RouteConfigDef.TABLE, route.table(), TABLES));
    }
    if (!layout.routes().isEmpty()) {
      effects.add(
          new Effect.Mapped(
              SinkConfigDef.ROUTES_CONFIG,
              String.join(",", layout.routes().stream().map(ApacheLayout.Route::name).toList()),
              TABLES));
    }
    return effects;
  }

  /**
   * {@code iceberg.tables.dynamic-enabled}: the route {@code dynamic}, whose records name their
   * table in the route field, any table unless our allow-list narrows it.
   */
  private static List<Effect> dynamic(KeyRule.Input in) {
    List<Effect> effects = new ArrayList<>(KeyRule.notABoolean(in));
    ApacheLayout layout = in.layout();
    if (!layout.dynamic() || in.config().has(SinkConfigDef.ROUTES_CONFIG)) {
      return effects;
    }
    if (!layout.tables().isEmpty()) {
      effects.add(
          new Effect.Refusal(
              DYNAMIC,
              "true together with "
                  + TABLES
                  + ": set either static tables or dynamic routing (the Apache sink refuses both)"));
    }
    if (layout.routeField() == null) {
      effects.add(
          new Effect.Refusal(
              DYNAMIC, "dynamic routing needs " + ROUTE_FIELD + ", the field naming the table"));
      return effects;
    }
    ApacheLayout.Route route = layout.routes().get(0);
    String p = route.prefix();
    effects.add(new Effect.Mapped(SinkConfigDef.ROUTES_CONFIG, route.name(), DYNAMIC));
    effects.addAll(routeTopics(in.config(), route));
    effects.add(new Effect.Mapped(p + RouteConfigDef.TABLE_FIELD_QUALIFIED, "true", DYNAMIC));
    if (!in.config().has(p + RouteConfigDef.TABLE_ALLOW_REGEX)) {
      effects.add(
          new Effect.Warning(
              "dynamic routing takes any table that "
                  + layout.routeField()
                  + " names, as the Apache sink does; set "
                  + p
                  + RouteConfigDef.TABLE_ALLOW_REGEX
                  + " to allow only some"));
    }
    effects.add(new Effect.Mapped(p + RouteConfigDef.TABLE_ALLOW_REGEX, ".*", DYNAMIC));
    return effects;
  }

  /** A route reads the connector's topics ({@code topics} or {@code topics.regex}). */
  private static List<Effect> routeTopics(ApacheConfig config, ApacheLayout.Route route) {
    List<Effect> effects = new ArrayList<>();
    String topics = config.raw(SinkConnector.TOPICS_CONFIG);
    if (topics != null) {
      effects.add(
          new Effect.Mapped(
              route.prefix() + RouteConfigDef.TOPICS, topics, SinkConnector.TOPICS_CONFIG));
    }
    String regex = config.raw(SinkTask.TOPICS_REGEX_CONFIG);
    if (regex != null && !regex.isBlank()) {
      effects.add(
          new Effect.Mapped(
              route.prefix() + RouteConfigDef.TOPICS_REGEX, regex, SinkTask.TOPICS_REGEX_CONFIG));
    }
    return effects;
  }

  /**
   * {@code iceberg.tables.route-field}: the field whose value picks a static table (with its
   * route-regex), or names the table with dynamic routing.
   */
  private static List<Effect> routeField(KeyRule.Input in) {
    ApacheLayout layout = in.layout();
    String field = layout.routeField();
    if (field == null || in.config().has(SinkConfigDef.ROUTES_CONFIG)) {
      return List.of();
    }
    List<Effect> effects = new ArrayList<>();
    if (layout.dynamic()) {
      layout
          .routes()
          .forEach(
              r ->
                  effects.add(
                      new Effect.Mapped(
                          r.prefix() + RouteConfigDef.TABLE_FIELD, field, ROUTE_FIELD)));
      return effects;
    }
    for (String table : layout.unrouted()) {
      effects.add(
          new Effect.Warning(
              "table "
                  + table
                  + " has no "
                  + TABLE_PREFIX
                  + table
                  + ".route-regex while "
                  + ROUTE_FIELD
                  + " is set: it receives no records, as in the Apache sink"));
    }
    for (ApacheLayout.Route route : layout.routes()) {
      effects.add(
          new Effect.Mapped(route.prefix() + RouteConfigDef.MATCH_FIELD, field, ROUTE_FIELD));
    }
    if (layout.routes().isEmpty() && !layout.tables().isEmpty()) {
      effects.add(
          new Effect.Refusal(
              ROUTE_FIELD,
              "no table in "
                  + TABLES
                  + " has a route-regex (iceberg.table.<table>.route-regex), so no record would "
                  + "be written"));
    }
    return effects;
  }

  /**
   * {@code iceberg.tables.default-id-columns}: the primary key of every route whose table has no
   * {@code id-columns} of its own; its tables are keyed (docs/iceberg-primary-key-tables.md).
   */
  private static List<Effect> defaultIdColumns(KeyRule.Input in) {
    List<Effect> effects = new ArrayList<>();
    if (in.present() && !in.value().isBlank()) {
      for (ApacheLayout.Route route : in.layout().routes()) {
        if (!in.config().has(TABLE_PREFIX + route.table() + ".id-columns")) {
          effects.add(
              new Effect.Mapped(route.prefix() + RouteConfigDef.PRIMARY_KEY, in.value(), in.key()));
        }
      }
    }
    return effects;
  }

  /**
   * {@code iceberg.tables.upsert-mode-enabled} (a Tabular key the Apache sink ignores): true makes
   * every route keyed with {@code input=upsert}, unless the cdc field makes it debezium.
   */
  private static List<Effect> upsertMode(KeyRule.Input in) {
    List<Effect> effects = new ArrayList<>(KeyRule.notABoolean(in));
    if (in.config().bool(UPSERT_MODE, false) && !in.config().has(CDC_FIELD)) {
      effects.addAll(perRoute(in, RouteConfigDef.INPUT, InputMode.UPSERT.configValue()));
    }
    return effects;
  }

  /**
   * {@code iceberg.tables.cdc-field} (a Tabular key): the field of a flattened Debezium record that
   * holds the operation. This connector reads {@code __op} (c, r, u, d; Debezium's
   * ExtractNewRecordState with {@code add.fields=op}) and {@code __deleted}: that name maps to
   * {@code input=debezium} on every route; any other name is refused.
   */
  private static List<Effect> cdcField(KeyRule.Input in) {
    if (!in.present() || in.value().isBlank()) {
      return List.of();
    }
    if (!in.value().trim().equals(Envelopes.OP_FIELD)) {
      return List.of(
          new Effect.Refusal(
              in.key(),
              "the operation is read from the field "
                  + Envelopes.OP_FIELD
                  + " (values c, r, u, d, as Debezium's ExtractNewRecordState writes it with "
                  + "add.fields=op) or from a Debezium envelope; '"
                  + in.value().trim()
                  + "' is not read. Produce "
                  + Envelopes.OP_FIELD
                  + ", or leave the envelope unflattened, and set "
                  + in.key()
                  + "="
                  + Envelopes.OP_FIELD));
    }
    return perRoute(in, RouteConfigDef.INPUT, InputMode.DEBEZIUM.configValue());
  }

  /** {@code iceberg.tables.default-partition-by}: the spec of every route without its own. */
  private static List<Effect> defaultPartitionBy(KeyRule.Input in) {
    List<Effect> effects = new ArrayList<>();
    if (in.present() && !in.value().isBlank()) {
      for (ApacheLayout.Route route : in.layout().routes()) {
        if (route.partitionFrom().equals(DEFAULT_PARTITION_BY)) {
          effects.add(
              new Effect.Mapped(
                  route.prefix() + RouteConfigDef.PARTITION_BY, in.value(), in.key()));
        }
      }
    }
    return effects;
  }

  /** {@code iceberg.tables.write-props.*}: writers follow the table's own properties. */
  private static List<Effect> writeProps(KeyRule.Input in) {
    String prop = in.rest();
    return List.of(
        new Effect.Refusal(
            in.key(),
            "writer settings are not overridden per connector here: the writers follow the "
                + "table's own properties ("
                + prop
                + " included). Set "
                + prop
                + " on the table, and for tables the connector creates as "
                + AUTO_CREATE_PROPS
                + prop));
  }

  /**
   * {@code iceberg.table.<table>.<setting>}: a route's match regex or partition spec; unsupported
   * settings are errors, keys of no listed table warnings (the Apache sink ignores them as well).
   */
  private static List<Effect> tableKey(KeyRule.Input in) {
    ApacheLayout layout = in.layout();
    String key = in.key();
    String table = layout.tableOf(in.rest());
    String setting = layout.settingOf(in.rest());
    return switch (setting) {
      case "id-columns" ->
          table == null || in.value().isBlank()
              ? List.of()
              : layout.routeOf(table).stream()
                  .<Effect>map(
                      r ->
                          new Effect.Mapped(
                              r.prefix() + RouteConfigDef.PRIMARY_KEY, in.value(), key))
                  .toList();
      case "commit-branch" -> List.of(new Effect.Refusal(key, BRANCHES));
      case "route-regex", "partition-by" -> {
        if (layout.dynamic() && setting.equals("partition-by")) {
          yield List.of(
              new Effect.Refusal(
                  key,
                  "a partition spec per table is not supported with dynamic routing: every "
                      + "table created there gets "
                      + DEFAULT_PARTITION_BY));
        }
        if (table == null) {
          yield List.of(
              new Effect.Warning(
                  key
                      + (layout.dynamic()
                          ? ": per-table routing keys do not apply to dynamic routing: ignored, "
                              + "as by the Apache sink"
                          : ": names no table of " + TABLES + ": ignored, as by the Apache sink")));
        }
        yield setting.equals("route-regex")
            ? routeRegex(in, table)
            : layout.routeOf(table).stream()
                .filter(r -> !in.value().isBlank())
                .<Effect>map(
                    r ->
                        new Effect.Mapped(
                            r.prefix() + RouteConfigDef.PARTITION_BY, in.value(), key))
                .toList();
      }
      default ->
          List.of(
              new Effect.Refusal(
                  key,
                  "is not a key of the Apache Iceberg sink: a table's keys are route-regex, "
                      + "partition-by, id-columns and commit-branch"));
    };
  }

  /** {@code iceberg.table.<table>.route-regex}: the match regex of the table's route. */
  private static List<Effect> routeRegex(KeyRule.Input in, String table) {
    String regex = ApacheConfig.blankToNull(in.value());
    if (regex == null) {
      return List.of();
    }
    if (in.layout().routeField() == null) {
      return List.of(
          new Effect.Warning(
              in.key() + " applies only with " + ROUTE_FIELD + ": every record goes to " + table));
    }
    return in.layout().routeOf(table).stream()
        .<Effect>map(
            r -> new Effect.Mapped(r.prefix() + RouteConfigDef.MATCH_REGEX, regex, in.key()))
        .toList();
  }
}
