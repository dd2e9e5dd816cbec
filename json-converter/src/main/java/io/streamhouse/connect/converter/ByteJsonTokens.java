package io.streamhouse.connect.converter;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * {@link JsonTokens} read straight from the bytes of one JSON value, {@code bytes[from, to)}: one
 * pass, no parser to make per record, and a string's bytes taken as its UTF-8 as they are scanned.
 * Strict: whatever it does not read with certainty the way Jackson reads it for {@code
 * JsonConverter} (malformed JSON, numbers with leading zeros, text that is not well-formed UTF-8,
 * nesting deeper than {@link #MAX_NESTING}) throws {@link NotHandled}, and the caller hands the
 * record to {@code JsonConverter}. Bounded: it reads nothing outside the range and keeps no state
 * that grows with the input.
 */
final class ByteJsonTokens implements JsonTokens {
  /** The deepest nesting of objects and arrays read (one bit each of {@link #objects}). */
  static final int MAX_NESTING = 64;

  private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);

  private final byte[] b;
  private final int end;
  private int pos;

  /** Bit {@code i}: the container at nesting {@code i + 1} is an object (else an array). */
  private long objects;

  private int nesting;

  /** A value ended at the current nesting (a separator or the container's end comes next). */
  private boolean afterValue;

  /** A field name was read: its value comes next. */
  private boolean nameRead;

  private JsonToken current;

  /** The current string or name: its bytes between the quotes. */
  private int textFrom;

  private int textTo;

  /** The current string or name decoded, when it has escapes; null when its bytes are its text. */
  private String escaped;

  /** The current number: its bytes, its type and (of an integer that fits) its value. */
  private int numberFrom;

  private int numberTo;
  private JsonParser.NumberType numberType;
  private long longValue;

  ByteJsonTokens(byte[] bytes, int from, int to) {
    this.b = bytes;
    this.pos = from;
    this.end = to;
  }

  @Override
  public JsonToken next() {
    skipWhitespace();
    if (nesting == 0) {
      if (!afterValue) {
        return current = value();
      }
      if (pos != end) {
        throw NotHandled.INSTANCE; // more than one value
      }
      return current = null;
    }
    if (pos >= end) {
      throw NotHandled.INSTANCE;
    }
    byte c = b[pos];
    if (((objects >>> (nesting - 1)) & 1) == 0) {
      if (c == ']') {
        pos++;
        return current = pop(JsonToken.END_ARRAY);
      }
      if (afterValue) {
        separator(c);
      }
      return current = value();
    }
    if (nameRead) {
      nameRead = false;
      return current = value();
    }
    if (c == '}') {
      pos++;
      return current = pop(JsonToken.END_OBJECT);
    }
    if (afterValue) {
      separator(c);
      c = b[pos];
    }
    if (c != '"') {
      throw NotHandled.INSTANCE;
    }
    string();
    if (textTo - textFrom > JsonLimits.MAX_NAME_BYTES
        || (escaped != null && JsonEscapes.hasSurrogate(escaped))) {
      throw NotHandled.INSTANCE; // too long for Jackson, or a lone surrogate it refuses in a name
    }
    skipWhitespace();
    if (pos >= end || b[pos] != ':') {
      throw NotHandled.INSTANCE;
    }
    pos++;
    nameRead = true;
    afterValue = false;
    return current = JsonToken.FIELD_NAME;
  }

  /** A comma, then whitespace and something. */
  private void separator(byte c) {
    if (c != ',') {
      throw NotHandled.INSTANCE;
    }
    pos++;
    skipWhitespace();
    if (pos >= end) {
      throw NotHandled.INSTANCE;
    }
  }

  private JsonToken value() {
    if (pos >= end) {
      throw NotHandled.INSTANCE;
    }
    byte c = b[pos];
    switch (c) {
      case '{':
        pos++;
        return push(true, JsonToken.START_OBJECT);
      case '[':
        pos++;
        return push(false, JsonToken.START_ARRAY);
      case '"':
        string();
        afterValue = true;
        return JsonToken.VALUE_STRING;
      case 't':
        return literal(TRUE, JsonToken.VALUE_TRUE);
      case 'f':
        return literal(FALSE, JsonToken.VALUE_FALSE);
      case 'n':
        return literal(NULL, JsonToken.VALUE_NULL);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          JsonToken number = number();
          afterValue = true;
          return number;
        }
        throw NotHandled.INSTANCE;
    }
  }

  private JsonToken push(boolean object, JsonToken token) {
    if (nesting == MAX_NESTING) {
      throw NotHandled.INSTANCE;
    }
    objects = object ? objects | (1L << nesting) : objects & ~(1L << nesting);
    nesting++;
    afterValue = false;
    nameRead = false;
    return token;
  }

  private JsonToken pop(JsonToken token) {
    nesting--;
    afterValue = true;
    return token;
  }

  private JsonToken literal(byte[] word, JsonToken token) {
    int n = word.length;
    if (pos + n > end || !Arrays.equals(b, pos, pos + n, word, 0, n)) {
      throw NotHandled.INSTANCE;
    }
    pos += n;
    delimited();
    afterValue = true;
    return token;
  }

  /** A number or literal must end where the input, whitespace or a separator does. */
  private void delimited() {
    if (pos < end) {
      byte c = b[pos];
      if (c != ',' && c != ']' && c != '}' && !whitespace(c)) {
        throw NotHandled.INSTANCE;
      }
    }
  }

  private JsonToken number() {
    int from = pos;
    boolean negative = b[pos] == '-';
    if (negative) {
      pos++;
    }
    int digitsFrom = pos;
    skipDigits();
    int digits = pos - digitsFrom;
    if (digits == 0 || (digits > 1 && b[digitsFrom] == '0')) {
      throw NotHandled.INSTANCE; // no digit, or a leading zero: JsonConverter's to read
    }
    boolean integer = true;
    if (pos < end && b[pos] == '.') {
      pos++;
      requireDigits();
      integer = false;
    }
    if (pos < end && (b[pos] == 'e' || b[pos] == 'E')) {
      pos++;
      if (pos < end && (b[pos] == '+' || b[pos] == '-')) {
        pos++;
      }
      requireDigits();
      integer = false;
    }
    delimited();
    if (pos - from > JsonLimits.MAX_NUMBER_CHARS) {
      throw NotHandled.INSTANCE;
    }
    numberFrom = from;
    numberTo = pos;
    if (!integer) {
      numberType = JsonParser.NumberType.BIG_DECIMAL;
      return JsonToken.VALUE_NUMBER_FLOAT;
    }
    if (digits <= 18) {
      long value = 0;
      for (int i = digitsFrom; i < pos; i++) {
        value = value * 10 + (b[i] - '0');
      }
      longValue = negative ? -value : value;
    } else {
      try {
        longValue = Long.parseLong(ascii(from, pos));
      } catch (NumberFormatException beyondALong) {
        numberType = JsonParser.NumberType.BIG_INTEGER;
        return JsonToken.VALUE_NUMBER_INT;
      }
    }
    numberType =
        longValue >= Integer.MIN_VALUE && longValue <= Integer.MAX_VALUE
            ? JsonParser.NumberType.INT
            : JsonParser.NumberType.LONG;
    return JsonToken.VALUE_NUMBER_INT;
  }

  private void skipDigits() {
    while (pos < end && b[pos] >= '0' && b[pos] <= '9') {
      pos++;
    }
  }

  private void requireDigits() {
    int from = pos;
    skipDigits();
    if (pos == from) {
      throw NotHandled.INSTANCE;
    }
  }

  private String ascii(int from, int to) {
    return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
  }

  /**
   * The string whose opening quote is at {@link #pos}; ends after its closing quote. Escapes are
   * rare in record values: their decoding ({@link JsonEscapes}) is out of this path.
   */
  private void string() {
    int from = pos + 1;
    int stop = Utf8Strings.plainRun(b, from, end);
    if (stop < 0) {
      throw NotHandled.INSTANCE;
    }
    textFrom = from;
    if (stop - from > JsonLimits.MAX_STRING_BYTES) {
      throw NotHandled.INSTANCE;
    }
    if (b[stop] == '"') {
      textTo = stop;
      escaped = null;
      pos = stop + 1;
      return;
    }
    StringBuilder text = new StringBuilder(stop - from + 16);
    textTo = JsonEscapes.decode(b, from, stop, end, text);
    escaped = text.toString();
    pos = textTo + 1;
  }

  private void skipWhitespace() {
    while (pos < end && whitespace(b[pos])) {
      pos++;
    }
  }

  private static boolean whitespace(byte c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
  }

  @Override
  public JsonToken current() {
    return current;
  }

  @Override
  public boolean nameIs(String name) {
    if (escaped != null) {
      return escaped.equals(name);
    }
    int length = textTo - textFrom;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c >= 0x80) {
        return name().equals(name);
      }
      if (i >= length || b[textFrom + i] != c) {
        return false;
      }
    }
    return length == name.length();
  }

  @Override
  public String name() {
    return text();
  }

  @Override
  public JsonParser.NumberType numberType() {
    return numberType;
  }

  @Override
  public long longValue() {
    if (numberType == JsonParser.NumberType.BIG_INTEGER) {
      throw NotHandled.INSTANCE;
    }
    return longValue;
  }

  @Override
  public int intValue() {
    if (numberType != JsonParser.NumberType.INT) {
      throw NotHandled.INSTANCE;
    }
    return (int) longValue;
  }

  @Override
  public BigDecimal decimalValue() {
    try {
      return new BigDecimal(ascii(numberFrom, numberTo));
    } catch (NumberFormatException | ArithmeticException e) {
      throw NotHandled.INSTANCE;
    }
  }

  @Override
  public String text() {
    return escaped != null
        ? escaped
        : new String(b, textFrom, textTo - textFrom, StandardCharsets.UTF_8);
  }

  @Override
  public JsonText utf8Text() {
    return escaped != null
        ? JsonText.of(escaped)
        : JsonText.ofUtf8(Arrays.copyOfRange(b, textFrom, textTo));
  }

  @Override
  public void skipChildren() {
    if (current != JsonToken.START_OBJECT && current != JsonToken.START_ARRAY) {
      return;
    }
    int outside = nesting - 1;
    while (nesting > outside) {
      next();
    }
  }
}
