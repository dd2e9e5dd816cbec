package io.streamhouse.connect.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One term of a route's {@code partition-by}: {@code col}, {@code day(col)}, {@code bucket(16,
 * col)}, {@code truncate(4, col)}, ... ({@code bucket(col, 16)} is accepted too).
 */
public record PartitionTerm(Transform transform, String column, int width) {
  /** Partition transforms, as in Iceberg. */
  public enum Transform {
    IDENTITY,
    YEAR,
    MONTH,
    DAY,
    HOUR,
    BUCKET,
    TRUNCATE
  }

  private static final Pattern COLUMN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern CALL =
      Pattern.compile("(\\w+)\\s*\\(\\s*([^,()]+?)\\s*(?:,\\s*([^,()]+?)\\s*)?\\)");

  /** Splits {@code day(ts), bucket(16, id)} at the commas outside parentheses. */
  public static List<String> split(String spec) {
    List<String> terms = new ArrayList<>();
    if (spec == null || spec.isBlank()) {
      return terms;
    }
    int depth = 0;
    int start = 0;
    for (int i = 0; i < spec.length(); i++) {
      char c = spec.charAt(i);
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      if (c == ',' && depth == 0) {
        terms.add(spec.substring(start, i).trim());
        start = i + 1;
      }
    }
    terms.add(spec.substring(start).trim());
    terms.removeIf(String::isEmpty);
    return terms;
  }

  /** Parses a term or throws {@link IllegalArgumentException} saying what is wrong. */
  public static PartitionTerm parse(String term) {
    String t = term.trim();
    if (COLUMN.matcher(t).matches()) {
      return new PartitionTerm(Transform.IDENTITY, t, 0);
    }
    Matcher m = CALL.matcher(t);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "partition term '" + term + "' is not col, fn(col) or fn(n, col)");
    }
    Transform transform;
    try {
      transform = Transform.valueOf(normalize(m.group(1)));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "partition term '"
              + term
              + "': unknown transform '"
              + m.group(1)
              + "'; use identity, year, month, day, hour, bucket or truncate");
    }
    boolean takesWidth = transform == Transform.BUCKET || transform == Transform.TRUNCATE;
    String a = m.group(2);
    String b = m.group(3);
    if (takesWidth != (b != null)) {
      throw new IllegalArgumentException(
          "partition term '"
              + term
              + "': "
              + transform.name().toLowerCase(Locale.ROOT)
              + (takesWidth ? " takes a width and a column" : " takes one column"));
    }
    if (!takesWidth) {
      return column(term, transform, a, 0);
    }
    boolean aIsNumber = a.matches("\\d+");
    String width = aIsNumber ? a : b;
    String column = aIsNumber ? b : a;
    if (!width.matches("\\d+") || Integer.parseInt(width) <= 0) {
      throw new IllegalArgumentException(
          "partition term '" + term + "': width must be a positive integer");
    }
    return column(term, transform, column, Integer.parseInt(width));
  }

  private static PartitionTerm column(String term, Transform transform, String column, int width) {
    if (!COLUMN.matcher(column).matches()) {
      throw new IllegalArgumentException(
          "partition term '" + term + "': '" + column + "' is not a column name");
    }
    return new PartitionTerm(transform, column, width);
  }

  private static String normalize(String fn) {
    String f = fn.toUpperCase(Locale.ROOT);
    return switch (f) {
      case "YEARS", "MONTHS", "DAYS", "HOURS" -> f.substring(0, f.length() - 1);
      default -> f;
    };
  }
}
