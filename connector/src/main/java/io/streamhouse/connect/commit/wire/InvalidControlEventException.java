package io.streamhouse.connect.commit.wire;

/**
 * A control event that was read and refused: the typed end of every bad input on the control topic.
 * Nothing else may escape a decoder; the channel logs, counts and skips the event.
 */
public final class InvalidControlEventException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Why an event was refused. */
  public enum Reason {
    /** Shorter than any event, or cut short inside a field. */
    TRUNCATED,
    /** Larger than any event this plugin sends. */
    OVERSIZED,
    /** A format version this plugin does not read. */
    UNKNOWN_VERSION,
    /**
     * No MAC, or one that does not match the connector's key: not sent by this connector's tasks.
     */
    BAD_SIGNATURE,
    /** Signed, but a field is out of range or the layout is wrong. */
    MALFORMED
  }

  private final Reason reason;

  public InvalidControlEventException(Reason reason, String message) {
    super(message, null, false, false);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
