package io.streamhouse.connect.errors;

/** A record whose schema its table cannot follow (the evolution planner rejected the change). */
public class SchemaChangeRejectedException extends RecordConversionException {
  private static final long serialVersionUID = 1L;

  public SchemaChangeRejectedException(String field, String message) {
    super(field, message);
  }
}
