package io.streamhouse.connect.errors;

/** A record value that cannot be written to a table; names the field concerned. */
public class RecordConversionException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String field;

  public RecordConversionException(String field, String message) {
    super(message);
    this.field = field;
  }

  public RecordConversionException(String field, String message, Throwable cause) {
    super(message, cause);
    this.field = field;
  }

  /** Dotted path of the field, or {@code <value>} for the record value as a whole. */
  public String field() {
    return field;
  }
}
