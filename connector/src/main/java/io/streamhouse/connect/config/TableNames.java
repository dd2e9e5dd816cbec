package io.streamhouse.connect.config;

import io.streamhouse.connect.protocol.TableId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Table names, the same for both formats: a name or namespace level is 1 to 128 characters of a-z,
 * 0-9 and '_'. Names that come from data (a topic, a record field) are sanitized first:
 * lower-cased, and every other character becomes '_'.
 */
public final class TableNames {
  public static final String TOPIC_PLACEHOLDER = "${topic}";
  private static final Pattern PART = Pattern.compile("[a-z0-9_]{1,128}");
  private static final Pattern ILLEGAL = Pattern.compile("[^a-z0-9_]");

  private TableNames() {}

  /** {@code Orders-EU.v2} becomes {@code orders_eu_v2}. */
  public static String sanitize(String raw) {
    return ILLEGAL.matcher(raw.toLowerCase(Locale.ROOT)).replaceAll("_");
  }

  /**
   * {@code DB.Orders-EU} becomes {@code db.orders_eu}: a whole identifier, each dot-separated part
   * sanitized, the dots kept (empty parts stay empty, and {@link #parse} rejects them).
   */
  public static String sanitizeQualified(String raw) {
    String[] parts = raw.split("\\.", -1);
    for (int i = 0; i < parts.length; i++) {
      parts[i] = sanitize(parts[i]);
    }
    return String.join(".", parts);
  }

  /**
   * The table of a template ({@code ns.table}, {@code ${topic}}, {@code raw.${topic}}) for a topic;
   * a name without namespace gets {@code defaultNamespace}.
   */
  public static TableId resolve(
      String catalog, String template, String topic, String defaultNamespace) {
    String name = template.replace(TOPIC_PLACEHOLDER, sanitize(topic));
    return parse(catalog, name, defaultNamespace);
  }

  /** Parses {@code ns.table} (already sanitized or written by the user) and validates each part. */
  public static TableId parse(String catalog, String qualified, String defaultNamespace) {
    List<String> parts = new ArrayList<>(Arrays.asList(qualified.split("\\.", -1)));
    for (String part : parts) {
      if (!PART.matcher(part).matches()) {
        throw new IllegalArgumentException(
            "'"
                + qualified
                + "' is not a valid table name: each "
                + "dot-separated part must be 1 to 128 characters of a-z, 0-9 and _");
      }
    }
    String name = parts.remove(parts.size() - 1);
    if (parts.isEmpty()) {
      parts.add(defaultNamespace);
    }
    return new TableId(catalog, parts, name);
  }

  /** An error message if {@code template} cannot give a valid table name. */
  static Optional<String> checkTemplate(String template) {
    try {
      parse("check", template.replace(TOPIC_PLACEHOLDER, "topic"), "default");
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
  }
}
