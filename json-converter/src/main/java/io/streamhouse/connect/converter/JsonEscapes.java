package io.streamhouse.connect.converter;

import java.nio.charset.StandardCharsets;

/**
 * The escapes of JSON strings, for {@link ByteJsonTokens}: a string with a backslash is decoded
 * here, out of the tokenizer's path for plain strings, which take their bytes as they are. Strict
 * as the tokenizer: an escape Jackson would not read the same way throws {@link NotHandled}.
 */
final class JsonEscapes {
  private JsonEscapes() {}

  /**
   * Decodes the string of {@code b} that starts at {@code from} and whose first backslash (or
   * closing quote) is at {@code stop} into {@code text}; returns where its closing quote is. Reads
   * nothing at or past {@code end}.
   */
  static int decode(byte[] b, int from, int stop, int end, StringBuilder text) {
    int at = from;
    while (true) {
      text.append(new String(b, at, stop - at, StandardCharsets.UTF_8));
      if (b[stop] == '"') {
        return stop;
      }
      at = unescape(b, stop + 1, end, text);
      stop = Utf8Strings.plainRun(b, at, end);
      if (stop < 0 || stop - from > JsonLimits.MAX_STRING_BYTES) {
        throw NotHandled.INSTANCE;
      }
    }
  }

  /** Whether {@code text} holds a surrogate (a name with one is left to Jackson). */
  static boolean hasSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (Character.isSurrogate(text.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  /** Appends the escape after a backslash at {@code at - 1}; returns where the text goes on. */
  private static int unescape(byte[] b, int at, int end, StringBuilder text) {
    if (at >= end) {
      throw NotHandled.INSTANCE;
    }
    byte c = b[at];
    switch (c) {
      case '"', '\\', '/' -> text.append((char) c);
      case 'b' -> text.append('\b');
      case 'f' -> text.append('\f');
      case 'n' -> text.append('\n');
      case 'r' -> text.append('\r');
      case 't' -> text.append('\t');
      case 'u' -> {
        if (at + 4 >= end) {
          throw NotHandled.INSTANCE;
        }
        int code = 0;
        for (int i = at + 1; i <= at + 4; i++) {
          int digit = Character.digit(b[i], 16);
          if (digit < 0) {
            throw NotHandled.INSTANCE;
          }
          code = code * 16 + digit;
        }
        text.append((char) code);
        return at + 5;
      }
      default -> throw NotHandled.INSTANCE;
    }
    return at + 1;
  }
}
