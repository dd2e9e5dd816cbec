package io.streamhouse.connect.converter;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Utf8StringsTest {
  @Test
  void findsTheEndOfPlainText() {
    byte[] b = "\"h\u00e9llo \u2603 \ud83d\ude80\",".getBytes(StandardCharsets.UTF_8);
    assertThat(Utf8Strings.plainEnd(b, 1)).isEqualTo(b.length - 2);
  }

  @Test
  void refusesEscapesControlCharactersAndAnUnendedString() {
    assertThat(Utf8Strings.plainEnd(bytes("\"a\\\"b\""), 1)).isEqualTo(-1);
    assertThat(Utf8Strings.plainEnd(bytes("\"a\tb\""), 1)).isEqualTo(-1);
    assertThat(Utf8Strings.plainEnd(bytes("\"abc"), 1)).isEqualTo(-1);
  }

  @Test
  void refusesOverlongFormsSurrogatesAndCodePointsPastTheLast() {
    assertThat(Utf8Strings.plainEnd(new byte[] {(byte) 0xC0, (byte) 0xAF, '"'}, 0)).isEqualTo(-1);
    assertThat(Utf8Strings.plainEnd(new byte[] {(byte) 0xE0, (byte) 0x80, (byte) 0xAF, '"'}, 0))
        .isEqualTo(-1);
    assertThat(Utf8Strings.plainEnd(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'}, 0))
        .isEqualTo(-1);
    assertThat(
            Utf8Strings.plainEnd(
                new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"'}, 0))
        .isEqualTo(-1);
    assertThat(Utf8Strings.plainEnd(new byte[] {(byte) 0xE2, (byte) 0x98, '"'}, 0)).isEqualTo(-1);
  }

  /** Random bytes: taken as text exactly when the JDK's strict UTF-8 decoder reads them. */
  @Test
  void agreesWithTheJdksStrictDecoderOnRandomBytes() {
    Random random = new Random(42);
    for (int n = 0; n < 200_000; n++) {
      byte[] text = new byte[1 + random.nextInt(6)];
      for (int i = 0; i < text.length; i++) {
        int c;
        do {
          c = random.nextBoolean() ? 0x80 + random.nextInt(0x80) : random.nextInt(0x100);
        } while (c == '"' || c == '\\' || c < 0x20);
        text[i] = (byte) c;
      }
      byte[] quoted = new byte[text.length + 1];
      System.arraycopy(text, 0, quoted, 0, text.length);
      quoted[text.length] = '"';
      boolean wellFormed = strictlyDecodes(text);
      assertThat(Utf8Strings.plainEnd(quoted, 0))
          .as("%s", java.util.HexFormat.of().formatHex(text))
          .isEqualTo(wellFormed ? text.length : -1);
    }
  }

  /**
   * Longer runs, read eight bytes at a time where they are plain ASCII: the first quote or
   * backslash is found exactly when the text before it is well-formed, a control character or a
   * malformed byte anywhere before it refuses the run, and the run ends at its bound.
   */
  @Test
  void findsTheFirstQuoteOrBackslashOfLongRunsAsTheJdksStrictDecoderReadsThem() {
    Random random = new Random(7);
    byte[] specials = {
      '"', '\\', 0x00, 0x1f, 0x7f, (byte) 0x80, (byte) 0xC3, (byte) 0xA9, (byte) 0xFF
    };
    for (int n = 0; n < 100_000; n++) {
      byte[] b = new byte[random.nextInt(40)];
      for (int i = 0; i < b.length; i++) {
        b[i] =
            random.nextInt(12) == 0
                ? specials[random.nextInt(specials.length)]
                : (byte) (0x20 + random.nextInt(0x5f));
      }
      int from = b.length == 0 ? 0 : random.nextInt(b.length);
      int end = from + random.nextInt(b.length - from + 1);
      int stop = from;
      while (stop < end && b[stop] != '"' && b[stop] != '\\') {
        stop++;
      }
      byte[] before = java.util.Arrays.copyOfRange(b, from, stop);
      boolean plain = stop < end && strictlyDecodes(before);
      for (byte c : before) {
        plain &= (c & 0xFF) >= 0x20;
      }
      assertThat(Utf8Strings.plainRun(b, from, end))
          .as("%s from %d to %d", java.util.HexFormat.of().formatHex(b), from, end)
          .isEqualTo(plain ? stop : -1);
    }
  }

  private static boolean strictlyDecodes(byte[] b) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(b));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
