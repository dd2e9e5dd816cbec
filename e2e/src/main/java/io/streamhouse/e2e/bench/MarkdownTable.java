package io.streamhouse.e2e.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Prints benchmark result rows as a Markdown table (the format of docs/performance.md). */
final class MarkdownTable {
  private MarkdownTable() {}

  /** Prints the rows under a blank line, the columns those of the first row; nothing when none. */
  static void print(List<Map<String, String>> results) {
    if (results.isEmpty()) {
      return;
    }
    List<String> columns = new ArrayList<>(results.get(0).keySet());
    System.out.println();
    System.out.println("| " + String.join(" | ", columns) + " |");
    System.out.println("|" + "---|".repeat(columns.size()));
    for (Map<String, String> row : results) {
      System.out.println("| " + String.join(" | ", columns.stream().map(row::get).toList()) + " |");
    }
  }
}
