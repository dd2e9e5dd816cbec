package io.streamhouse.connect.convert;

import java.util.HashMap;
import java.util.Map;

/**
 * The paths that name a value in conversion errors ({@code customer.name}, {@code tags[3]}), made
 * once and kept by one converter: a converter names the path of every value it converts, and
 * building those strings for every record was about 3 % of a task thread's allocation (JFR, 1M
 * records with a nested struct and a list). Only names from the table's schema and list indexes
 * below {@link #MAX_INDEX} are kept, at most {@link #MAX_PATHS} paths in all; past that a path is
 * built per call as before. Not thread-safe: a converter is used by one thread at a time.
 */
public final class FieldPaths {
  /** List elements past this index get a new path per call. */
  static final int MAX_INDEX = 64;

  /** At most this many paths are kept. */
  static final int MAX_PATHS = 10_000;

  private final Map<String, Map<String, String>> children = new HashMap<>();
  private final Map<String, String[]> elements = new HashMap<>();
  private int kept;

  /** {@code parent.name}, or {@code name} when {@code parent} is empty (a top-level column). */
  public String child(String parent, String name) {
    if (parent.isEmpty()) {
      return name;
    }
    Map<String, String> named = children.get(parent);
    String path = named == null ? null : named.get(name);
    if (path == null) {
      path = parent + "." + name;
      if (kept < MAX_PATHS) {
        children.computeIfAbsent(parent, p -> new HashMap<>()).put(name, path);
        kept++;
      }
    }
    return path;
  }

  /** {@code list[index]}. */
  public String element(String list, int index) {
    if (index >= MAX_INDEX) {
      return list + "[" + index + "]";
    }
    String[] indexed = elements.get(list);
    if (indexed == null) {
      if (kept >= MAX_PATHS) {
        return list + "[" + index + "]";
      }
      indexed = new String[MAX_INDEX];
      elements.put(list, indexed);
      kept++;
    }
    String path = indexed[index];
    if (path == null) {
      path = list + "[" + index + "]";
      indexed[index] = path;
    }
    return path;
  }
}
