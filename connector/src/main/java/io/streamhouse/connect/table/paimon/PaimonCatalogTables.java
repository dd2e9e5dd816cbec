package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.TableNotFoundException;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;

/** The tables of one Paimon catalog as the format's parts look them up: by {@link TableId}. */
final class PaimonCatalogTables {
  private final Catalog catalog;

  PaimonCatalogTables(Catalog catalog) {
    this.catalog = catalog;
  }

  Catalog catalog() {
    return catalog;
  }

  boolean exists(TableId id) {
    try {
      catalog.getTable(identifier(id));
      return true;
    } catch (Catalog.TableNotExistException e) {
      return false;
    }
  }

  FileStoreTable table(TableId id) {
    try {
      return (FileStoreTable) catalog.getTable(identifier(id));
    } catch (Catalog.TableNotExistException e) {
      throw new TableNotFoundException("Paimon table " + id + " does not exist");
    }
  }

  static Identifier identifier(TableId id) {
    if (id.namespace().size() != 1) {
      throw new IllegalArgumentException(
          "Paimon table "
              + id
              + " needs exactly one namespace level "
              + "(the database), got "
              + id.namespace());
    }
    return Identifier.create(id.namespace().get(0), id.name());
  }
}
