package io.streamhouse.connect.schema;

import java.util.Set;

/** A table's columns as the planner sees them, with the top-level columns it must never change. */
public record TableColumns(
    FieldType.Struct columns, Set<String> keyColumns, Set<String> partitionColumns) {
  public TableColumns {
    keyColumns = Set.copyOf(keyColumns);
    partitionColumns = Set.copyOf(partitionColumns);
  }
}
