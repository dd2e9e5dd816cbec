package io.streamhouse.connect.converter;

/**
 * The longest number, name and string the fast path reads: below the limits Jackson's default read
 * constraints put on what {@code JsonConverter} reads (numbers of 1,000 characters, names of
 * 50,000, strings of 5,000,000 in 2.15.0 and 20,000,000 since); a longer one is left to {@code
 * JsonConverter}, which refuses it.
 */
final class JsonLimits {
  static final int MAX_NUMBER_CHARS = 900;
  static final int MAX_NAME_BYTES = 40_000;
  static final int MAX_STRING_BYTES = 4_000_000;

  private JsonLimits() {}
}
