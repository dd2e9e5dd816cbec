package io.streamhouse.connect.migration;

import static io.streamhouse.connect.migration.ApacheKeys.*;

import io.streamhouse.connect.config.CatalogConfigDef;
import io.streamhouse.connect.config.MigrationConfigDef;
import io.streamhouse.connect.config.RouteConfigDef;
import io.streamhouse.connect.config.SinkConfigDef;
import io.streamhouse.connect.config.TableFormatKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The rules of the Apache sink's catalog keys ({@code iceberg.catalog}, {@code iceberg.catalog.*},
 * {@code iceberg.hadoop.*}, {@code iceberg.hadoop-conf-dir}): one Iceberg catalog of ours, {@code
 * catalog.<name>.*}, which is also the catalog of the tables taken over.
 */
final class CatalogKeyRules {
  /** Catalog classes with a catalog type of ours. */
  private static final Map<String, String> TYPE_OF_IMPL =
      Map.of(
          "org.apache.iceberg.rest.RESTCatalog", "rest",
          "org.apache.iceberg.jdbc.JdbcCatalog", "jdbc",
          "org.apache.iceberg.hadoop.HadoopCatalog", "hadoop");

  private static final String GLUE_CATALOG_IMPL = "org.apache.iceberg.aws.glue.GlueCatalog";

  static final List<KeyRule> RULES =
      List.of(
          KeyRule.key(CATALOG_NAME, CatalogKeyRules::catalog),
          KeyRule.key(CATALOG_TYPE, CatalogKeyRules::type),
          KeyRule.key(CATALOG_IMPL, CatalogKeyRules::impl),
          KeyRule.mappedUnder(CATALOG_PREFIX, in -> prefix(in) + in.rest()),
          KeyRule.mappedUnder(HADOOP_PREFIX, in -> prefix(in) + "hadoop." + in.rest()),
          KeyRule.key(
              HADOOP_CONF_DIR,
              in ->
                  in.present()
                      ? List.of(
                          new Effect.Mapped(prefix(in) + "hadoop-conf-dir", in.value(), in.key()))
                      : List.of()));

  private CatalogKeyRules() {}

  /** {@code catalog.<name>.} */
  private static String prefix(KeyRule.Input in) {
    return CatalogConfigDef.PREFIX + in.layout().catalog() + ".";
  }

  /** {@code iceberg.catalog}: the catalog's name, also that of the take-over and of every route. */
  private static List<Effect> catalog(KeyRule.Input in) {
    List<Effect> effects = new ArrayList<>();
    String name = in.config().value(CATALOG_NAME, DEFAULT_CATALOG);
    if (!ApacheLayout.NAME.matcher(name).matches()) {
      effects.add(
          new Effect.Refusal(
              CATALOG_NAME,
              "'" + name + "' cannot name a catalog here: use only a-z, A-Z, 0-9, '_' and '-'"));
    }
    if (in.config().under(CATALOG_PREFIX).isEmpty()) {
      effects.add(
          new Effect.Refusal(
              CATALOG_NAME,
              "no "
                  + CATALOG_PREFIX
                  + "* properties: set the catalog's type (or catalog-impl), uri and warehouse, as "
                  + "for the Apache sink"));
    }
    if (in.config().has(SinkConfigDef.CATALOGS_CONFIG)) {
      effects.add(
          new Effect.Refusal(
              CATALOG_NAME,
              "the Apache sink's catalog keys and this connector's 'catalogs' are both set: use "
                  + "one or the other"));
    }
    String catalog = in.layout().catalog();
    effects.add(new Effect.Mapped(SinkConfigDef.CATALOGS_CONFIG, catalog, CATALOG_NAME));
    effects.add(
        new Effect.Mapped(
            prefix(in) + CatalogConfigDef.FORMAT,
            TableFormatKind.ICEBERG.configValue(),
            CATALOG_NAME));
    effects.add(new Effect.Mapped(MigrationConfigDef.CATALOG_CONFIG, catalog, CATALOG_NAME));
    for (ApacheLayout.Route route : in.layout().routes()) {
      effects.add(
          new Effect.Mapped(route.prefix() + RouteConfigDef.CATALOG, catalog, CATALOG_NAME));
    }
    return effects;
  }

  /** {@code iceberg.catalog.type}: a type of ours, or an error; Hive, Iceberg's default, is one. */
  private static List<Effect> type(KeyRule.Input in) {
    String type = ApacheConfig.blankToNull(in.value());
    String impl = ApacheConfig.blankToNull(in.config().raw(CATALOG_IMPL));
    String typeKey = CATALOG_TYPE;
    if (type != null && impl != null) {
      return List.of(
          new Effect.Refusal(
              typeKey,
              "set together with "
                  + CATALOG_IMPL
                  + ": set one of them (Iceberg refuses a catalog with both, in the Apache sink "
                  + "too)"));
    }
    if (impl != null) {
      return List.of(); // the rule of catalog-impl
    }
    if (type == null) {
      Map<String, String> others = in.config().under(CATALOG_PREFIX);
      others.remove("type");
      return others.isEmpty()
          ? List.of()
          : List.of(
              new Effect.Refusal(
                  typeKey,
                  "is not set, nor "
                      + CATALOG_IMPL
                      + ": the Apache sink then uses Iceberg's default, a Hive catalog, which this "
                      + "connector does not support (no Hive client in the plugin); put a REST "
                      + "catalog in front of the metastore, or set type rest, jdbc, hadoop or "
                      + "glue"));
    }
    String ourType = prefix(in) + CatalogConfigDef.TYPE;
    return switch (type.toLowerCase(Locale.ROOT)) {
      case "rest", "jdbc", "hadoop" ->
          List.of(new Effect.Mapped(ourType, type.toLowerCase(Locale.ROOT), typeKey));
      case "glue" ->
          List.of(
              new Effect.Mapped(ourType, "custom", typeKey),
              new Effect.Mapped(
                  prefix(in) + CatalogConfigDef.CATALOG_IMPL, GLUE_CATALOG_IMPL, typeKey));
      default -> unsupported(type, typeKey);
    };
  }

  /**
   * {@code iceberg.catalog.catalog-impl}: a type of ours for Iceberg's own classes, else custom.
   */
  private static List<Effect> impl(KeyRule.Input in) {
    if (!in.present()) {
      return List.of();
    }
    String impl = ApacheConfig.blankToNull(in.value());
    String ourImpl = prefix(in) + CatalogConfigDef.CATALOG_IMPL;
    Effect.Mapped asItIs = new Effect.Mapped(ourImpl, in.value(), in.key());
    if (impl == null || ApacheConfig.blankToNull(in.config().raw(CATALOG_TYPE)) != null) {
      return List.of(asItIs); // the rule of type reports both set
    }
    String ourType = prefix(in) + CatalogConfigDef.TYPE;
    String known = TYPE_OF_IMPL.get(impl);
    if (known != null) {
      return List.of(new Effect.Mapped(ourType, known, in.key()));
    }
    List<Effect> refused = unsupported(impl, in.key());
    return refused.isEmpty()
        ? List.of(new Effect.Mapped(ourType, "custom", in.key()), asItIs)
        : refused;
  }

  /** Refusals of a catalog type or class that is not supported; none for a class on the path. */
  private static List<Effect> unsupported(String typeOrImpl, String key) {
    String t = typeOrImpl.toLowerCase(Locale.ROOT);
    if (t.equals("hive") || t.endsWith(".hivecatalog")) {
      return List.of(
          new Effect.Refusal(
              key,
              typeOrImpl
                  + ": Hive Metastore catalogs are not supported: the plugin bundles no Hive "
                  + "client (the Apache sink ships one only in its separate Hive distribution); put "
                  + "a REST catalog in front of the metastore, or use rest, jdbc, hadoop or glue"));
    }
    if (t.contains(".") && !onClassPath(typeOrImpl)) {
      return List.of(
          new Effect.Refusal(
              key,
              typeOrImpl
                  + ": no such class on the plugin's class path; use a catalog type (rest, jdbc, "
                  + "hadoop, glue) or add the catalog's jar to the plugin directory"));
    }
    if (!t.contains(".")) {
      return List.of(
          new Effect.Refusal(
              key,
              typeOrImpl
                  + ": this catalog type is not supported (the plugin bundles no client for it); "
                  + "use rest, jdbc, hadoop or glue, or a catalog-impl class on the plugin's class "
                  + "path"));
    }
    return List.of();
  }

  private static boolean onClassPath(String className) {
    try {
      Class.forName(className, false, CatalogKeyRules.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
