package io.streamhouse.connect.config;

import io.streamhouse.connect.decode.KafkaMetadata;
import io.streamhouse.connect.protocol.TableId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.config.ConfigValue;

/** Rules that span several keys of catalogs and routes; each error goes to one key. */
final class CrossFieldRules {
  private static final Map<TableFormatKind, List<String>> TYPES_BY_FORMAT =
      Map.of(
          TableFormatKind.ICEBERG, List.of("rest", "jdbc", "hadoop", "custom"),
          TableFormatKind.PAIMON, List.of("filesystem", "jdbc", "rest"));

  private CrossFieldRules() {}

  static void check(
      Map<String, String> props,
      Map<String, ConfigValue> byName,
      BiConsumer<String, String> error) {
    List<String> catalogs = SinkConfigDef.names(props.get(SinkConfigDef.CATALOGS_CONFIG));
    for (String catalog : catalogs) {
      checkCatalog(catalog, props, byName, error);
    }
    List<String> routes = SinkConfigDef.names(props.get(SinkConfigDef.ROUTES_CONFIG));
    for (String route : routes) {
      checkRoute(route, catalogs, props, error);
    }
    checkEveryTopicHasARoute(routes, props, error);
    checkDeadLetterTable(catalogs, props, error);
    TransactionRules.check(catalogs, props, error);
  }

  /**
   * {@code errors.deadletter.table}: a valid table name in a catalog of the connector (the one
   * {@code errors.deadletter.catalog} names, if set), one the catalog can hold (a Paimon table has
   * one namespace level, its database), and only with {@code errors.tolerance=all} (with {@code
   * none} a bad record fails the task).
   */
  private static void checkDeadLetterTable(
      List<String> catalogs, Map<String, String> props, BiConsumer<String, String> error) {
    String table = props.get(ErrorsConfigDef.DEAD_LETTER_TABLE_CONFIG);
    String catalog = props.get(ErrorsConfigDef.DEAD_LETTER_CATALOG_CONFIG);
    String key = ErrorsConfigDef.DEAD_LETTER_TABLE_CONFIG;
    String catalogKey = ErrorsConfigDef.DEAD_LETTER_CATALOG_CONFIG;
    if (blank(table)) {
      if (!blank(catalog)) {
        error.accept(catalogKey, "names the catalog of " + key + ", which is not set");
      }
      return;
    }
    String tolerance = props.get("errors.tolerance");
    if (tolerance == null || !tolerance.trim().equalsIgnoreCase("all")) {
      error.accept(
          key,
          "a dead-letter table needs errors.tolerance=all (with none a bad record fails the task)");
    }
    if (!blank(catalog) && !catalogs.contains(catalog.trim())) {
      error.accept(
          catalogKey,
          "catalog '" + catalog.trim() + "' of the dead-letter table is not one of " + catalogs);
      return;
    }
    TableId id;
    try {
      id = StreamhouseSinkConfig.deadLetterTableOf(table, catalog, catalogs);
    } catch (IllegalArgumentException e) {
      error.accept(key, e.getMessage());
      return;
    }
    if (formatOf(id.catalog(), props).equals(Optional.of(TableFormatKind.PAIMON))
        && id.namespace().size() != 1) {
      error.accept(
          key,
          "the dead-letter table "
              + id
              + " is in Paimon catalog '"
              + id.catalog()
              + "', whose tables have exactly one namespace level (the database), not "
              + id.namespace()
              + ": write <database>.<table>");
    }
  }

  private static void checkCatalog(
      String name,
      Map<String, String> props,
      Map<String, ConfigValue> byName,
      BiConsumer<String, String> error) {
    String p = CatalogConfigDef.PREFIX + name + ".";
    if (!SinkConfigValidator.hasNoErrors(byName, p + CatalogConfigDef.FORMAT)
        || !SinkConfigValidator.hasNoErrors(byName, p + CatalogConfigDef.TYPE)) {
      return;
    }
    TableFormatKind format =
        ConfigWords.parse(
            TableFormatKind.class, String.valueOf(byName.get(p + CatalogConfigDef.FORMAT).value()));
    String type = String.valueOf(byName.get(p + CatalogConfigDef.TYPE).value());
    if (!TYPES_BY_FORMAT.get(format).contains(type)) {
      error.accept(
          p + CatalogConfigDef.TYPE,
          "catalog "
              + name
              + ": type "
              + type
              + " is not a "
              + format.configValue()
              + " catalog type; use one of "
              + TYPES_BY_FORMAT.get(format));
      return;
    }
    boolean needsUri = type.equals("rest") || type.equals("jdbc");
    if (needsUri && blank(props.get(p + CatalogConfigDef.URI))) {
      error.accept(
          p + CatalogConfigDef.URI,
          "catalog " + name + ": a " + type + " catalog needs " + p + CatalogConfigDef.URI);
    }
    boolean needsWarehouse = !type.equals("rest") && !type.equals("custom");
    if (needsWarehouse && blank(props.get(p + CatalogConfigDef.WAREHOUSE))) {
      error.accept(
          p + CatalogConfigDef.WAREHOUSE,
          "catalog " + name + ": a " + type + " catalog needs " + p + CatalogConfigDef.WAREHOUSE);
    }
    if (type.equals("custom") && blank(props.get(p + CatalogConfigDef.CATALOG_IMPL))) {
      error.accept(
          p + CatalogConfigDef.CATALOG_IMPL,
          "catalog " + name + ": a custom catalog needs " + p + CatalogConfigDef.CATALOG_IMPL);
    }
    boolean atomic =
        SinkConfigValidator.hasNoErrors(byName, p + CatalogConfigDef.COMMIT_ATOMIC)
            && Boolean.TRUE.equals(byName.get(p + CatalogConfigDef.COMMIT_ATOMIC).value());
    if (atomic && (format != TableFormatKind.ICEBERG || !type.equals("rest"))) {
      error.accept(
          p + CatalogConfigDef.COMMIT_ATOMIC,
          "catalog "
              + name
              + ": atomic commits need an Iceberg REST catalog whose server commits several tables"
              + " in one transaction (Nessie, Apache Polaris, Lakekeeper); this is a "
              + format.configValue()
              + " "
              + type
              + " catalog");
    }
  }

  private static void checkRoute(
      String name,
      List<String> catalogs,
      Map<String, String> props,
      BiConsumer<String, String> error) {
    String p = RouteConfigDef.PREFIX + name + ".";
    boolean hasTopics = !SinkConfigDef.names(props.get(p + RouteConfigDef.TOPICS)).isEmpty();
    boolean hasRegex = !blank(props.get(p + RouteConfigDef.TOPICS_REGEX));
    if (hasTopics == hasRegex) {
      error.accept(
          p + RouteConfigDef.TOPICS,
          "route "
              + name
              + ": set exactly one of "
              + p
              + RouteConfigDef.TOPICS
              + " and "
              + p
              + RouteConfigDef.TOPICS_REGEX);
    }
    String catalog = props.get(p + RouteConfigDef.CATALOG);
    if (blank(catalog) && catalogs.size() > 1) {
      error.accept(
          p + RouteConfigDef.CATALOG, "route " + name + ": name its catalog, one of " + catalogs);
    } else if (!blank(catalog) && !catalogs.contains(catalog.trim())) {
      error.accept(
          p + RouteConfigDef.CATALOG,
          "route " + name + ": catalog '" + catalog + "' is not listed in catalogs " + catalogs);
    }
    boolean dynamic = !blank(props.get(p + RouteConfigDef.TABLE_FIELD));
    if (dynamic && blank(props.get(p + RouteConfigDef.TABLE_ALLOW_REGEX))) {
      error.accept(
          p + RouteConfigDef.TABLE_ALLOW_REGEX,
          "route "
              + name
              + ": dynamic routing by "
              + p
              + RouteConfigDef.TABLE_FIELD
              + " needs an allow-list "
              + p
              + RouteConfigDef.TABLE_ALLOW_REGEX);
    }
    boolean hasMatchField = !blank(props.get(p + RouteConfigDef.MATCH_FIELD));
    if (hasMatchField != !blank(props.get(p + RouteConfigDef.MATCH_REGEX))) {
      error.accept(
          hasMatchField ? p + RouteConfigDef.MATCH_REGEX : p + RouteConfigDef.MATCH_FIELD,
          "route "
              + name
              + ": "
              + p
              + RouteConfigDef.MATCH_FIELD
              + " and "
              + p
              + RouteConfigDef.MATCH_REGEX
              + " go together");
    }
    String table = props.get(p + RouteConfigDef.TABLE);
    if (!dynamic && table != null) {
      TableNames.checkTemplate(table)
          .ifPresent(m -> error.accept(p + RouteConfigDef.TABLE, "route " + name + ": " + m));
    }
    checkMetadataColumn(name, props, error);
    Optional<TableFormatKind> format =
        formatOf(
            blank(catalog) ? (catalogs.size() == 1 ? catalogs.get(0) : null) : catalog.trim(),
            props);
    for (String term : PartitionTerm.split(props.get(p + RouteConfigDef.PARTITION_BY))) {
      try {
        PartitionTerm parsed = PartitionTerm.parse(term);
        if (format.equals(Optional.of(TableFormatKind.PAIMON))
            && parsed.transform() != PartitionTerm.Transform.IDENTITY) {
          error.accept(
              p + RouteConfigDef.PARTITION_BY,
              "route "
                  + name
                  + ": Paimon tables are "
                  + "partitioned by plain columns; '"
                  + term
                  + "' is a transform");
        }
      } catch (IllegalArgumentException e) {
        error.accept(p + RouteConfigDef.PARTITION_BY, "route " + name + ": " + e.getMessage());
      }
    }
    if (format.equals(Optional.of(TableFormatKind.ICEBERG))) {
      if (Boolean.parseBoolean(
          String.valueOf(props.get(p + RouteConfigDef.ICEBERG_COMPATIBLE)).trim())) {
        error.accept(
            p + RouteConfigDef.ICEBERG_COMPATIBLE,
            "route "
                + name
                + ": iceberg-compatible makes Paimon tables readable by Iceberg engines; the tables "
                + "of an Iceberg catalog are Iceberg tables already");
      }
      checkPartitionSourcesAreKeys(name, props, error);
    }
  }

  /**
   * An Iceberg route with a primary key: every partition source column is a key column, so that a
   * key alone names the partition of its row (a change of any other column would move the row to
   * another partition, where no delete by position can follow it).
   */
  private static void checkPartitionSourcesAreKeys(
      String name, Map<String, String> props, BiConsumer<String, String> error) {
    String p = RouteConfigDef.PREFIX + name + ".";
    List<String> key = SinkConfigDef.names(props.get(p + RouteConfigDef.PRIMARY_KEY));
    if (key.isEmpty()) {
      return; // append, or a key from the Kafka key: checked when a table is created
    }
    for (String term : PartitionTerm.split(props.get(p + RouteConfigDef.PARTITION_BY))) {
      String column;
      try {
        column = PartitionTerm.parse(term).column();
      } catch (IllegalArgumentException e) {
        continue; // reported above
      }
      if (!key.contains(column)) {
        error.accept(
            p + RouteConfigDef.PARTITION_BY,
            "route "
                + name
                + ": an Iceberg table with a primary key is partitioned by key columns only; '"
                + term
                + "' partitions by '"
                + column
                + "', which is not in primary-key "
                + key
                + " (use bucket(N, key) to spread keys)");
      }
    }
  }

  /**
   * A route with Kafka metadata: its column is a value column, neither a primary-key nor a
   * partition column.
   */
  private static void checkMetadataColumn(
      String name, Map<String, String> props, BiConsumer<String, String> error) {
    String p = RouteConfigDef.PREFIX + name + ".";
    if (SinkConfigDef.names(props.get(p + RouteConfigDef.KAFKA_METADATA)).isEmpty()) {
      return;
    }
    String column = props.get(p + RouteConfigDef.KAFKA_METADATA_COLUMN);
    String metadataColumn = blank(column) ? KafkaMetadata.DEFAULT_COLUMN : column.trim();
    boolean inKey =
        SinkConfigDef.names(props.get(p + RouteConfigDef.PRIMARY_KEY)).contains(metadataColumn);
    boolean inPartition = false;
    for (String term : PartitionTerm.split(props.get(p + RouteConfigDef.PARTITION_BY))) {
      try {
        inPartition |= PartitionTerm.parse(term).column().equals(metadataColumn);
      } catch (IllegalArgumentException e) {
        // reported by the partition-by check
      }
    }
    if (inKey || inPartition) {
      error.accept(
          p + RouteConfigDef.KAFKA_METADATA_COLUMN,
          "route "
              + name
              + ": the Kafka metadata column '"
              + metadataColumn
              + "' is a value column; it cannot be in "
              + p
              + (inKey ? RouteConfigDef.PRIMARY_KEY : RouteConfigDef.PARTITION_BY));
    }
  }

  /**
   * The table format of {@code catalog}: the default (iceberg) when the catalog does not set one;
   * empty when the route's catalog is unknown or its format is not a format (the checks of those
   * keys report that), so no format-specific rule is applied on a guess.
   */
  private static Optional<TableFormatKind> formatOf(String catalog, Map<String, String> props) {
    if (catalog == null
        || !SinkConfigDef.names(props.get(SinkConfigDef.CATALOGS_CONFIG)).contains(catalog)) {
      return Optional.empty();
    }
    String format = props.get(CatalogConfigDef.PREFIX + catalog + "." + CatalogConfigDef.FORMAT);
    if (blank(format)) {
      return Optional.of(TableFormatKind.ICEBERG);
    }
    return ConfigWords.find(TableFormatKind.class, format);
  }

  private static void checkEveryTopicHasARoute(
      List<String> routes, Map<String, String> props, BiConsumer<String, String> error) {
    for (String topic : SinkConfigDef.names(props.get(SinkConfigValidator.TOPICS_CONFIG))) {
      boolean taken = false;
      for (String route : routes) {
        String p = RouteConfigDef.PREFIX + route + ".";
        if (SinkConfigDef.names(props.get(p + RouteConfigDef.TOPICS)).contains(topic)
            || matches(props.get(p + RouteConfigDef.TOPICS_REGEX), topic)) {
          taken = true;
        }
      }
      if (!taken) {
        error.accept(
            SinkConfigDef.ROUTES_CONFIG,
            "topic '"
                + topic
                + "' is in topics but no route "
                + "takes it: add it to a route's topics or topics.regex");
      }
    }
  }

  private static boolean matches(String regex, String topic) {
    if (blank(regex)) {
      return false;
    }
    try {
      return Pattern.compile(regex).matcher(topic).matches();
    } catch (PatternSyntaxException e) {
      return false;
    }
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
