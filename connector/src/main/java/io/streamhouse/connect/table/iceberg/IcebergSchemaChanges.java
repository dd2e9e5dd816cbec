package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.schema.SchemaChange;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;

/**
 * Planned schema changes as one Iceberg schema update of a table: committed to the catalog, or, for
 * a view of {@link PendingSchemas}, kept pending there.
 */
final class IcebergSchemaChanges {
  private IcebergSchemaChanges() {}

  static void apply(Table table, List<SchemaChange> changes) {
    UpdateSchema update = table.updateSchema();
    for (SchemaChange change : changes) {
      String column = SchemaChange.dotted(change.path());
      if (change instanceof SchemaChange.AddColumn add) {
        List<String> parent = add.path().subList(0, add.path().size() - 1);
        String name = add.path().get(add.path().size() - 1);
        if (parent.isEmpty()) {
          update.addColumn(name, IcebergColumns.iceberg(add.type()));
        } else {
          update.addColumn(SchemaChange.dotted(parent), name, IcebergColumns.iceberg(add.type()));
        }
      } else if (change instanceof SchemaChange.WidenColumn widen) {
        update.updateColumn(column, IcebergColumns.iceberg(widen.to()).asPrimitiveType());
      } else {
        update.makeColumnOptional(column);
      }
    }
    update.commit();
  }
}
