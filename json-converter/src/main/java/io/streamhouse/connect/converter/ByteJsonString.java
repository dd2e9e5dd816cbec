package io.streamhouse.connect.converter;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The current string or field name of a {@link ByteJsonTokens}, read in place: its bytes between
 * the quotes, taken as its UTF-8 as they are (checked by {@link Utf8Strings#plainRun}), and decoded
 * into a Java string only when it has escapes. As strict as the tokens: an escape it does not read
 * the way Jackson does, bytes that are not well-formed UTF-8 or are control characters, or a string
 * longer than {@link ByteJsonTokens#MAX_STRING_BYTES} throw {@link NotHandled}. It keeps the
 * positions of one string, so that reading a name to compare it makes no Java string.
 */
final class ByteJsonString {
  private final byte[] b;
  private final int end;

  /** The current string or name: its bytes between the quotes. */
  private int textFrom;

  private int textTo;

  /** The current string or name decoded, when it has escapes; null when its bytes are its text. */
  private String escaped;

  ByteJsonString(byte[] bytes, int end) {
    this.b = bytes;
    this.end = end;
  }

  /**
   * Reads the string whose opening quote is at {@code quote}; returns where it ends, after its
   * closing quote.
   */
  int read(int quote) {
    int from = quote + 1;
    int stop = Utf8Strings.plainRun(b, from, end);
    if (stop < 0) {
      throw NotHandled.INSTANCE;
    }
    textFrom = from;
    if (stop - from > ByteJsonTokens.MAX_STRING_BYTES) {
      throw NotHandled.INSTANCE;
    }
    if (b[stop] == '"') {
      textTo = stop;
      escaped = null;
      return stop + 1;
    }
    StringBuilder text = new StringBuilder(stop - from + 16);
    int at = from;
    while (true) {
      text.append(new String(b, at, stop - at, StandardCharsets.UTF_8));
      if (b[stop] == '"') {
        break;
      }
      at = unescape(stop + 1, text);
      stop = Utf8Strings.plainRun(b, at, end);
      if (stop < 0 || stop - from > ByteJsonTokens.MAX_STRING_BYTES) {
        throw NotHandled.INSTANCE;
      }
    }
    textTo = stop;
    escaped = text.toString();
    return stop + 1;
  }

  /** Appends the escape after a backslash at {@code at - 1}; returns where the text goes on. */
  private int unescape(int at, StringBuilder text) {
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

  /** Its length in bytes between the quotes. */
  int bytes() {
    return textTo - textFrom;
  }

  /** Whether its text has a surrogate char, which only an escape makes. */
  boolean hasSurrogate() {
    return escaped != null && hasSurrogate(escaped);
  }

  private static boolean hasSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (Character.isSurrogate(text.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  /** Whether it is {@code name}, compared with its bytes where {@code name} is ASCII. */
  boolean is(String name) {
    if (escaped != null) {
      return escaped.equals(name);
    }
    int length = textTo - textFrom;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c >= 0x80) {
        return text().equals(name);
      }
      if (i >= length || b[textFrom + i] != c) {
        return false;
      }
    }
    return length == name.length();
  }

  String text() {
    return escaped != null
        ? escaped
        : new String(b, textFrom, textTo - textFrom, StandardCharsets.UTF_8);
  }

  JsonText utf8Text() {
    return escaped != null
        ? JsonText.of(escaped)
        : JsonText.ofUtf8(Arrays.copyOfRange(b, textFrom, textTo));
  }
}
