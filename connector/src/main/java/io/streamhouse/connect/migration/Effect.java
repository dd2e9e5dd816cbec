package io.streamhouse.connect.migration;

/**
 * What a rule of the translation makes of an Apache sink key: a key of ours with its value, a
 * warning for the worker log, or a refusal saying why the key is not supported.
 */
sealed interface Effect {
  /**
   * Our key {@code ourKey} gets {@code value}, translated from {@code from} (the Apache key, or
   * what else supplied it); a key of ours the user set too counts instead.
   */
  record Mapped(String ourKey, String value, String from) implements Effect {}

  /** A warning for the worker log. */
  record Warning(String message) implements Effect {}

  /** An error on {@code key}: its message is {@code key: reason}. */
  record Refusal(String key, String reason) implements Effect {
    String message() {
      return key + ": " + reason;
    }
  }
}
