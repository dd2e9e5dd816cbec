package io.streamhouse.connect.errors;

/**
 * A record whose table does not exist and may not be created (a route with auto-create off naming a
 * missing table): the record cannot be written until someone creates the table.
 */
public class TableUnavailableException extends RecordConversionException {
  private static final long serialVersionUID = 1L;

  public TableUnavailableException(String message, Throwable cause) {
    super("<table>", message, cause);
  }
}
