package io.streamhouse.connect.converter;

/**
 * Thrown where the fast path would have to guess what {@code JsonConverter} does: the record goes
 * to {@code JsonConverter} instead. Without a stack trace, since it is control flow.
 */
final class NotHandled extends RuntimeException {
  private static final long serialVersionUID = 1L;

  static final NotHandled INSTANCE = new NotHandled();

  private NotHandled() {
    super("left to JsonConverter", null, false, false);
  }
}
