package io.streamhouse.connect.config;

import static io.streamhouse.connect.config.IcebergSinkCompat.*;

import java.util.Locale;
import java.util.Map;

/**
 * The Apache sink's catalog keys ({@code iceberg.catalog}, {@code iceberg.catalog.*}, {@code
 * iceberg.hadoop.*}) as one of our catalogs. Part of {@link IcebergSinkCompat}.
 */
final class ApacheCatalogKeys extends ApacheKeysTranslation {
  ApacheCatalogKeys(ApacheKeysTranslation shared) {
    super(shared);
  }

  String catalog() {
    handled.add(CATALOG_NAME);
    String name = value(CATALOG_NAME, DEFAULT_CATALOG);
    if (!NAME.matcher(name).matches()) {
      error(
          CATALOG_NAME,
          "'" + name + "' cannot name a catalog here: use only a-z, A-Z, 0-9, '_' and '-'");
      name = DEFAULT_CATALOG;
    }
    Map<String, String> props = withPrefix(CATALOG_PREFIX);
    if (props.isEmpty()) {
      error(
          CATALOG_NAME,
          "no "
              + CATALOG_PREFIX
              + "* properties: set the catalog's type (or catalog-impl), uri and warehouse, as "
              + "for the Apache sink");
    }
    if (given.containsKey(SinkConfigDef.CATALOGS_CONFIG)) {
      error(
          CATALOG_NAME,
          "the Apache sink's catalog keys and this connector's 'catalogs' are both set: use "
              + "one or the other");
    }
    String p = CatalogConfigDef.PREFIX + name + ".";
    set(SinkConfigDef.CATALOGS_CONFIG, name, CATALOG_NAME);
    set(p + CatalogConfigDef.FORMAT, TableFormatKind.ICEBERG.configValue(), CATALOG_NAME);
    String typeKey = CATALOG_PREFIX + "type";
    String implKey = CATALOG_PREFIX + "catalog-impl";
    String type = blankToNull(props.remove("type"));
    String impl = blankToNull(props.get("catalog-impl"));
    if (type != null && impl != null) {
      error(
          typeKey,
          "set together with "
              + implKey
              + ": set one of them (Iceberg refuses a catalog with both, in the Apache sink too)");
    } else if (impl != null) {
      String known = TYPE_OF_IMPL.get(impl);
      if (known != null) {
        props.remove("catalog-impl");
        set(p + CatalogConfigDef.TYPE, known, implKey);
      } else if (unsupportedCatalog(impl, implKey)) {
        props.remove("catalog-impl");
      } else {
        set(p + CatalogConfigDef.TYPE, "custom", implKey);
      }
    } else if (type != null) {
      switch (type.toLowerCase(Locale.ROOT)) {
        case "rest", "jdbc", "hadoop" ->
            set(p + CatalogConfigDef.TYPE, type.toLowerCase(Locale.ROOT), typeKey);
        case "glue" -> {
          set(p + CatalogConfigDef.TYPE, "custom", typeKey);
          set(p + CatalogConfigDef.CATALOG_IMPL, GLUE_CATALOG_IMPL, typeKey);
        }
        default -> unsupportedCatalog(type, typeKey);
      }
    } else if (!props.isEmpty()) {
      error(
          typeKey,
          "is not set, nor "
              + implKey
              + ": the Apache sink then uses Iceberg's default, a Hive catalog, which this "
              + "connector does not support (no Hive client in the plugin); put a REST catalog in "
              + "front of the metastore, or set type rest, jdbc, hadoop or glue");
    }
    handled.add(typeKey);
    for (Map.Entry<String, String> e : props.entrySet()) {
      set(p + e.getKey(), e.getValue(), CATALOG_PREFIX + e.getKey());
    }
    withPrefix(HADOOP_PREFIX).forEach((k, v) -> set(p + "hadoop." + k, v, HADOOP_PREFIX + k));
    if (given.containsKey(HADOOP_CONF_DIR)) {
      handled.add(HADOOP_CONF_DIR);
      set(p + "hadoop-conf-dir", given.get(HADOOP_CONF_DIR), HADOOP_CONF_DIR);
    }
    return name;
  }

  /** Reports a catalog type or class that is not supported; true if it was one. */
  private boolean unsupportedCatalog(String typeOrImpl, String key) {
    String t = typeOrImpl.toLowerCase(Locale.ROOT);
    if (t.equals("hive") || t.endsWith(".hivecatalog")) {
      error(
          key,
          typeOrImpl
              + ": Hive Metastore catalogs are not supported: the plugin bundles no Hive client "
              + "(the Apache sink ships one only in its separate Hive distribution); put a REST "
              + "catalog in front of the metastore, or use rest, jdbc, hadoop or glue");
      return true;
    }
    if (t.contains(".") && !onClassPath(typeOrImpl)) {
      error(
          key,
          typeOrImpl
              + ": no such class on the plugin's class path; use a catalog type (rest, jdbc, "
              + "hadoop, glue) or add the catalog's jar to the plugin directory");
      return true;
    }
    if (!t.contains(".")) {
      error(
          key,
          typeOrImpl
              + ": this catalog type is not supported (the plugin bundles no client for it); use "
              + "rest, jdbc, hadoop or glue, or a catalog-impl class on the plugin's class path");
      return true;
    }
    return false;
  }

  private static boolean onClassPath(String className) {
    try {
      Class.forName(className, false, IcebergSinkCompat.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
