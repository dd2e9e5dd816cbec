package io.streamhouse.connect.table;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.protocol.TableId;

/** A route names a table that does not exist and may not be created. */
public class TableNotFoundException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public TableNotFoundException(String message) {
    super(message);
  }

  /** {@code id} is missing and {@code route} may not create it. */
  public static TableNotFoundException autoCreateOff(TableId id, RouteSettings route) {
    return new TableNotFoundException(
        "Table "
            + id.qualifiedName()
            + " does not exist in catalog "
            + id.catalog()
            + " and route "
            + route.name()
            + " has auto-create off (set route."
            + route.name()
            + ".auto-create=true or create the table)");
  }
}
