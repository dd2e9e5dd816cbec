package io.streamhouse.connect.table;

/** A route names a table that does not exist and may not be created. */
public class TableNotFoundException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public TableNotFoundException(String message) {
    super(message);
  }
}
