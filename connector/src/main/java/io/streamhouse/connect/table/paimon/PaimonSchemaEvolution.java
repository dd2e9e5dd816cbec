package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.schema.EvolutionMode;
import io.streamhouse.connect.schema.FieldType;
import io.streamhouse.connect.schema.SchemaChange;
import io.streamhouse.connect.table.SchemaEvolutionLoop;
import java.util.ArrayList;
import java.util.List;

/**
 * Schema evolution of Paimon tables: the changes {@link SchemaEvolutionLoop} plans (new columns,
 * widened types, columns made optional) as Paimon schema changes, applied with {@code ALTER TABLE}.
 */
final class PaimonSchemaEvolution {
  private final PaimonCatalogTables tables;
  private final String connector;

  PaimonSchemaEvolution(PaimonCatalogTables tables, String connector) {
    this.tables = tables;
    this.connector = connector;
  }

  void evolve(TableId id, FieldType.Struct row, EvolutionMode mode)
      throws RecordConversionException {
    SchemaEvolutionLoop.run(
        connector,
        id,
        () -> PaimonColumns.of(tables.table(id)),
        row,
        mode,
        planned ->
            tables
                .catalog()
                .alterTable(PaimonCatalogTables.identifier(id), paimonChanges(planned), false));
  }

  private static List<org.apache.paimon.schema.SchemaChange> paimonChanges(
      List<SchemaChange> planned) {
    List<org.apache.paimon.schema.SchemaChange> changes = new ArrayList<>();
    for (SchemaChange change : planned) {
      String[] path = change.path().toArray(String[]::new);
      if (change instanceof SchemaChange.AddColumn add) {
        changes.add(
            org.apache.paimon.schema.SchemaChange.addColumn(
                path, PaimonColumns.paimon(add.type(), false).copy(true), null, null));
      } else if (change instanceof SchemaChange.WidenColumn widen) {
        changes.add(
            org.apache.paimon.schema.SchemaChange.updateColumnType(
                path, PaimonColumns.paimon(widen.to(), false), true));
      } else {
        changes.add(org.apache.paimon.schema.SchemaChange.updateColumnNullability(path, true));
      }
    }
    return changes;
  }
}
