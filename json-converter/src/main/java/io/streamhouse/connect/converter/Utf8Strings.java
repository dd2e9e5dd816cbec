package io.streamhouse.connect.converter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Finding a JSON string's end in its bytes, where its bytes are its text. */
final class Utf8Strings {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGH_BITS = 0x8080808080808080L;

  private Utf8Strings() {}

  /**
   * The index of the quote that ends the JSON string whose first byte after the opening quote is at
   * {@code from}, if the bytes in between are its text: no escape, no control character and
   * well-formed UTF-8 (shortest forms, no surrogates, nothing past U+10FFFF). -1 otherwise, and
   * when the input ends first.
   */
  static int plainEnd(byte[] b, int from) {
    int stop = plainRun(b, from, b.length);
    return stop >= 0 && b[stop] == '"' ? stop : -1;
  }

  /**
   * The index of the first quote or backslash at or after {@code from} and before {@code end}, if
   * the bytes before it are well-formed UTF-8 without control characters (as {@link #plainEnd}
   * takes them); -1 otherwise, and when {@code end} comes first.
   */
  static int plainRun(byte[] b, int from, int end) {
    int i = from;
    while (i < end) {
      if (i + Long.BYTES <= end) {
        long flagged = notPlainAscii((long) LONGS.get(b, i));
        if (flagged == 0) {
          i += Long.BYTES;
          continue;
        }
        // The lowest flagged byte is the first that is not plain ASCII (higher flags may be
        // borrows).
        i += Long.numberOfTrailingZeros(flagged) >>> 3;
      }
      int c = b[i] & 0xFF;
      if (c == '"' || c == '\\') {
        return i;
      }
      if (c < 0x20) {
        return -1;
      }
      if (c < 0x80) {
        i++;
      } else if (c >= 0xC2 && c <= 0xDF) {
        if (!continuation(b, i + 1, end)) {
          return -1;
        }
        i += 2;
      } else if (c >= 0xE0 && c <= 0xEF) {
        if (!continuation(b, i + 1, end) || !continuation(b, i + 2, end)) {
          return -1;
        }
        int c1 = b[i + 1] & 0xFF;
        if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F)) {
          return -1; // an overlong form, or a surrogate
        }
        i += 3;
      } else if (c >= 0xF0 && c <= 0xF4) {
        if (!continuation(b, i + 1, end)
            || !continuation(b, i + 2, end)
            || !continuation(b, i + 3, end)) {
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

  /**
   * The high bit of each byte of {@code w} (little-endian) that may not be printable ASCII text of
   * a JSON string (at or above 0x80, below 0x20, a quote or a backslash): zero exactly when none
   * is, and otherwise the lowest set bit marks the first byte that is not (a borrow only carries
   * upward).
   */
  private static long notPlainAscii(long w) {
    long below = (w - 0x20 * ONES) & ~w;
    return (w | below | zeroByte(w ^ ('"' * ONES)) | zeroByte(w ^ ('\\' * ONES))) & HIGH_BITS;
  }

  /** Has the high bit set in some byte if and only if some byte of {@code v} is zero. */
  private static long zeroByte(long v) {
    return (v - ONES) & ~v & HIGH_BITS;
  }

  private static boolean continuation(byte[] b, int i, int end) {
    return i < end && (b[i] & 0xC0) == 0x80;
  }
}
