package io.streamhouse.connect.converter;

/** Finding a JSON string's end in its bytes, where its bytes are its text. */
final class Utf8Strings {
  private Utf8Strings() {}

  /**
   * The index of the quote that ends the JSON string whose first byte after the opening quote is at
   * {@code from}, if the bytes in between are its text: no escape, no control character and
   * well-formed UTF-8 (shortest forms, no surrogates, nothing past U+10FFFF). -1 otherwise, and
   * when the input ends first.
   */
  static int plainEnd(byte[] b, int from) {
    int i = from;
    while (i < b.length) {
      int c = b[i] & 0xFF;
      if (c == '"') {
        return i;
      }
      if (c == '\\' || c < 0x20) {
        return -1;
      }
      if (c < 0x80) {
        i++;
      } else if (c >= 0xC2 && c <= 0xDF) {
        if (!continuation(b, i + 1)) {
          return -1;
        }
        i += 2;
      } else if (c >= 0xE0 && c <= 0xEF) {
        if (!continuation(b, i + 1) || !continuation(b, i + 2)) {
          return -1;
        }
        int c1 = b[i + 1] & 0xFF;
        if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F)) {
          return -1; // an overlong form, or a surrogate
        }
        i += 3;
      } else if (c >= 0xF0 && c <= 0xF4) {
        if (!continuation(b, i + 1) || !continuation(b, i + 2) || !continuation(b, i + 3)) {
          return -1;
        }
        int c1 = b[i + 1] & 0xFF;
        if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F)) {
          return -1; // an overlong form, or past U+10FFFF
        }
        i += 4;
      } else {
        return -1;
      }
    }
    return -1;
  }

  private static boolean continuation(byte[] b, int i) {
    return i < b.length && (b[i] & 0xC0) == 0x80;
  }
}
