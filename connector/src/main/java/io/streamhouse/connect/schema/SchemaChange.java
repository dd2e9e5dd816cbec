package io.streamhouse.connect.schema;

import java.util.List;

/** One change of a table's schema, addressed by the column's path (nested names in order). */
public sealed interface SchemaChange {
  List<String> path();

  /** Adds an optional column (top level or inside a struct) of {@code type}. */
  record AddColumn(List<String> path, FieldType type) implements SchemaChange {}

  /** Widens a primitive column: int to long, float to double, a decimal's precision. */
  record WidenColumn(List<String> path, FieldType from, FieldType to) implements SchemaChange {}

  /** Lets a required column hold null. */
  record MakeOptional(List<String> path) implements SchemaChange {}

  static String dotted(List<String> path) {
    return String.join(".", path);
  }
}
