package io.streamhouse.connect.config;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.types.Password;

/**
 * One named catalog: its format, its type, whether it commits a round's tables together, and the
 * properties to initialize it with (every other key under {@code catalog.<name>.}, prefix removed,
 * secrets resolved).
 */
public record CatalogSettings(
    String name,
    TableFormatKind format,
    String type,
    boolean atomicCommits,
    Map<String, String> properties) {

  /** Never prints secret values. */
  @Override
  public String toString() {
    return "catalog " + name + " (" + format.configValue() + "/" + type + ")";
  }

  static CatalogSettings from(String name, AbstractConfig config) {
    String prefix = CatalogConfigDef.PREFIX + name + ".";
    Map<String, String> properties = new LinkedHashMap<>();
    for (Map.Entry<String, ?> e : config.originalsWithPrefix(prefix).entrySet()) {
      Object value = e.getValue();
      properties.put(e.getKey(), value instanceof Password pw ? pw.value() : String.valueOf(value));
    }
    // Declared keys take their parsed value (defaults included).
    for (String key : CatalogConfigDef.forName(name).names()) {
      Object value = config.values().get(key);
      if (value != null) {
        properties.put(
            key.substring(prefix.length()),
            value instanceof Password pw ? pw.value() : String.valueOf(value));
      }
    }
    TableFormatKind format =
        ConfigWords.parse(TableFormatKind.class, properties.remove(CatalogConfigDef.FORMAT));
    String type = properties.remove(CatalogConfigDef.TYPE);
    boolean atomic = Boolean.parseBoolean(properties.remove(CatalogConfigDef.COMMIT_ATOMIC));
    return new CatalogSettings(name, format, type, atomic, Map.copyOf(properties));
  }
}
