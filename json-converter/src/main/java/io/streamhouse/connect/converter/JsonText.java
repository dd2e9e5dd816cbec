package io.streamhouse.connect.converter;

import io.streamhouse.connect.converter.api.Utf8Text;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A JSON string of a payload that {@link FastJsonConverter} decoded, kept as UTF-8 bytes for a sink
 * that writes UTF-8 (Parquet does) and as a Java {@code String} once asked for one: the text of an
 * ASCII string goes from the parser's characters to bytes without a {@code String} in between.
 * Equal to another {@code JsonText} of the same text; {@link #toString} is the text.
 */
final class JsonText extends Utf8Text {
  private byte[] utf8;
  private String text;

  private JsonText(byte[] utf8, String text) {
    this.utf8 = utf8;
    this.text = text;
  }

  /**
   * The text of {@code chars[offset, offset + length)}: ASCII straight into bytes, anything else
   * through a {@code String}.
   */
  static JsonText of(char[] chars, int offset, int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      char c = chars[offset + i];
      if (c >= 0x80) {
        return new JsonText(null, new String(chars, offset, length));
      }
      bytes[i] = (byte) c;
    }
    return new JsonText(bytes, null);
  }

  /** The text whose well-formed UTF-8 is {@code utf8}, an array no one else changes. */
  static JsonText ofUtf8(byte[] utf8) {
    return new JsonText(utf8, null);
  }

  static JsonText of(String text) {
    return new JsonText(null, text);
  }

  /** The text in UTF-8; the array is this object's own, not to be changed. */
  @Override
  public byte[] utf8() {
    if (utf8 == null) {
      utf8 = text.getBytes(StandardCharsets.UTF_8);
    }
    return utf8;
  }

  @Override
  public String toString() {
    if (text == null) {
      text = new String(utf8, StandardCharsets.UTF_8);
    }
    return text;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JsonText other && Arrays.equals(utf8(), other.utf8());
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(utf8());
  }
}
