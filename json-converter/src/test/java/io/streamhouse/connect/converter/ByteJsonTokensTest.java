package io.streamhouse.connect.converter;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * ByteJsonTokens reads every JSON value it reads into Jackson's tokens, names, strings and numbers,
 * and refuses (NotHandled) everything Jackson refuses, on random, edited and corrupted JSON.
 */
class ByteJsonTokensTest {
  private static final JsonFactory JACKSON =
      JsonFactory.builder().enable(JsonReadFeature.ALLOW_LEADING_ZEROS_FOR_NUMBERS).build();

  @Test
  void readsRandomJsonAsJacksonDoes() throws Exception {
    Random random = new Random(17);
    int read = 0;
    for (int i = 0; i < 20_000; i++) {
      byte[] json = randomValue(random, 0).getBytes(UTF_8);
      if (compare(json)) {
        read++;
      }
    }
    assertThat(read).as("values read rather than left to Jackson").isGreaterThan(15_000);
  }

  @Test
  void refusesWhatJacksonRefusesOnEditedAndCutJson() throws Exception {
    Random random = new Random(23);
    String alphabet = "{}[]:,\"\\ \t\n0123456789-+.eEtrufalsn\u00e9\u2603";
    for (int i = 0; i < 20_000; i++) {
      String value = randomValue(random, 0);
      StringBuilder edited = new StringBuilder(value);
      int edits = 1 + random.nextInt(3);
      for (int e = 0; e < edits && edited.length() > 0; e++) {
        int at = random.nextInt(edited.length());
        switch (random.nextInt(3)) {
          case 0 -> edited.deleteCharAt(at);
          case 1 -> edited.insert(at, alphabet.charAt(random.nextInt(alphabet.length())));
          default -> edited.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
        }
      }
      compare(edited.toString().getBytes(UTF_8));
      byte[] bytes = value.getBytes(UTF_8);
      compare(java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length + 1)));
      byte[] flipped = bytes.clone();
      flipped[random.nextInt(flipped.length)] = (byte) random.nextInt(256);
      compare(flipped);
    }
  }

  @Test
  void readsOnlyItsRangeOfTheBytes() throws Exception {
    byte[] bytes = "xx[1,\"a\"]yy".getBytes(UTF_8);
    ByteJsonTokens tokens = new ByteJsonTokens(bytes, 2, 9);
    assertThat(tokens.next()).isEqualTo(JsonToken.START_ARRAY);
    assertThat(tokens.next()).isEqualTo(JsonToken.VALUE_NUMBER_INT);
    assertThat(tokens.next()).isEqualTo(JsonToken.VALUE_STRING);
    assertThat(tokens.utf8Text().toString()).isEqualTo("a");
    assertThat(tokens.next()).isEqualTo(JsonToken.END_ARRAY);
    assertThat(tokens.next()).isNull();
    ByteJsonTokens cut = new ByteJsonTokens(bytes, 2, 7);
    assertThatThrownBy(() -> read(cut)).isInstanceOf(NotHandled.class);
  }

  @Test
  void refusesNestingDeeperThanItsBound() throws Exception {
    String deep = "[".repeat(ByteJsonTokens.MAX_NESTING + 1) + "]".repeat(65);
    ByteJsonTokens tokens = new ByteJsonTokens(deep.getBytes(UTF_8), 0, deep.length());
    assertThatThrownBy(() -> read(tokens)).isInstanceOf(NotHandled.class);
    String bound = "[".repeat(ByteJsonTokens.MAX_NESTING) + "]".repeat(64);
    assertThat(read(new ByteJsonTokens(bound.getBytes(UTF_8), 0, bound.length()))).hasSize(128);
  }

  /**
   * Reads {@code json} both ways: where ours reads it, Jackson reads the same tokens; where Jackson
   * refuses it, ours refuses it too. Returns whether ours read it.
   */
  private static boolean compare(byte[] json) throws Exception {
    List<String> jackson = null;
    try (JsonParser p = JACKSON.createParser(json)) {
      List<String> tokens = new ArrayList<>();
      JsonToken token;
      while ((token = p.nextToken()) != null) {
        tokens.add(describe(token, p));
      }
      if (!tokens.isEmpty()) {
        jackson = tokens;
      }
    } catch (Exception | StackOverflowError refused) {
      jackson = null;
    }
    List<String> ours;
    try {
      ours = read(new ByteJsonTokens(json, 0, json.length));
    } catch (NotHandled refused) {
      return false;
    }
    assertThat(jackson)
        .as("Jackson's reading of %s", visible(new String(json, UTF_8)))
        .isEqualTo(ours);
    return true;
  }

  private static List<String> read(ByteJsonTokens tokens) throws Exception {
    List<String> read = new ArrayList<>();
    JsonToken token;
    while ((token = tokens.next()) != null) {
      read.add(describe(token, tokens));
    }
    if (read.isEmpty()) {
      throw NotHandled.INSTANCE; // nothing to read: Jackson's parser yields no token either
    }
    return read;
  }

  private static String describe(JsonToken token, JsonParser p) throws Exception {
    return switch (token) {
      case FIELD_NAME -> "name " + visible(p.currentName());
      case VALUE_STRING -> "string " + visible(p.getText());
      case VALUE_NUMBER_INT -> "int " + p.getNumberType() + " " + p.getBigIntegerValue();
      case VALUE_NUMBER_FLOAT -> "float " + p.getDecimalValue();
      default -> token.toString();
    };
  }

  private static String describe(JsonToken token, ByteJsonTokens t) throws Exception {
    return switch (token) {
      case FIELD_NAME -> {
        assertThat(t.nameIs(t.name())).isTrue();
        assertThat(t.nameIs(t.name() + "x")).isFalse();
        yield "name " + visible(t.name());
      }
      case VALUE_STRING -> {
        assertThat(t.utf8Text().toString()).isEqualTo(t.text());
        yield "string " + visible(t.text());
      }
      case VALUE_NUMBER_INT ->
          "int "
              + t.numberType()
              + " "
              + (t.numberType() == JsonParser.NumberType.BIG_INTEGER
                  ? t.decimalValue().toBigInteger()
                  : java.math.BigInteger.valueOf(t.longValue()));
      case VALUE_NUMBER_FLOAT -> "float " + t.decimalValue();
      default -> token.toString();
    };
  }

  /** {@code text} with every character but printable ASCII as a Java escape. */
  private static String visible(String text) {
    StringBuilder shown = new StringBuilder();
    for (char c : text.toCharArray()) {
      shown.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c));
    }
    return shown.toString();
  }

  private static String randomValue(Random random, int depth) {
    int kind = random.nextInt(depth > 4 ? 6 : 8);
    return switch (kind) {
      case 0 -> "null";
      case 1 -> random.nextBoolean() ? "true" : "false";
      case 2 -> randomInteger(random);
      case 3 -> randomFloat(random);
      case 4, 5 -> quoted(randomText(random));
      case 6 -> {
        StringBuilder array = new StringBuilder("[");
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          array
              .append(i > 0 ? "," : "")
              .append(space(random))
              .append(randomValue(random, depth + 1));
        }
        yield array.append(space(random)).append(']').toString();
      }
      default -> {
        StringBuilder object = new StringBuilder("{");
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          object
              .append(i > 0 ? "," : "")
              .append(space(random))
              .append(quoted(randomText(random)))
              .append(space(random))
              .append(':')
              .append(randomValue(random, depth + 1));
        }
        yield object.append(space(random)).append('}').toString();
      }
    };
  }

  private static String randomInteger(Random random) {
    return switch (random.nextInt(6)) {
      case 0 -> Integer.toString(random.nextInt());
      case 1 -> Long.toString(random.nextLong());
      case 2 -> (random.nextBoolean() ? "-" : "") + "9".repeat(1 + random.nextInt(25));
      case 3 -> random.nextBoolean() ? "-0" : "0";
      case 4 -> "00" + random.nextInt(100);
      default -> Long.toString(random.nextLong() >> random.nextInt(64));
    };
  }

  private static String randomFloat(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> Double.toString(random.nextDouble() * 1e6);
      case 1 -> random.nextInt(1000) + "e" + (random.nextInt(40) - 20);
      case 2 -> "-" + random.nextInt(10) + "." + random.nextInt(1000) + "E+" + random.nextInt(5);
      default -> "1e" + random.nextInt(Integer.MAX_VALUE) + random.nextInt(10);
    };
  }

  private static String randomText(Random random) {
    String[] pieces = {
      "a",
      "id",
      "é",
      "\u2603",
      "\ud83c\udf81",
      " ",
      "\\\"",
      "\\\\",
      "\\/",
      "\\n",
      "\\t",
      "\\u00e9",
      "\\ud83c",
      "\\uDF81",
      "\\b\\f\\r",
      "x\u007f",
      "\\q",
      "\t"
    };
    StringBuilder text = new StringBuilder();
    int n = random.nextInt(4);
    for (int i = 0; i < n; i++) {
      text.append(pieces[random.nextInt(pieces.length)]);
    }
    return text.toString();
  }

  private static String quoted(String text) {
    return "\"" + text + "\"";
  }

  private static String space(Random random) {
    return random.nextInt(3) == 0 ? " \n\t\r".substring(random.nextInt(4)) : "";
  }
}
