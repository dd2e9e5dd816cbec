package io.streamhouse.connect.converter;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.Arrays;

/**
 * {@link JsonTokens} of a Jackson parser; over {@code input} from {@code base} when the bytes are
 * known (null otherwise), so that a string without escapes is taken as its bytes of the input once
 * they are checked to be well-formed UTF-8, instead of being decoded.
 */
final class JacksonTokens implements JsonTokens {
  private final JsonParser p;
  private final byte[] input;
  private final int base;

  JacksonTokens(JsonParser p, byte[] input, int base) {
    this.p = p;
    this.input = input;
    this.base = base;
  }

  @Override
  public JsonToken next() throws IOException {
    return p.nextToken();
  }

  @Override
  public JsonToken current() {
    return p.currentToken();
  }

  @Override
  public boolean nameIs(String name) throws IOException {
    return name.equals(p.currentName());
  }

  @Override
  public String name() throws IOException {
    return p.currentName();
  }

  @Override
  public JsonParser.NumberType numberType() throws IOException {
    return p.getNumberType();
  }

  @Override
  public long longValue() throws IOException {
    return p.getLongValue();
  }

  @Override
  public int intValue() throws IOException {
    return p.getIntValue();
  }

  @Override
  public BigDecimal decimalValue() throws IOException {
    return p.getDecimalValue();
  }

  @Override
  public String text() throws IOException {
    return p.getText();
  }

  /**
   * Its bytes of the input when it has no escape and is well-formed UTF-8 (then they are the UTF-8
   * of the text {@code JsonConverter} reads), else the characters the parser decodes.
   */
  @Override
  public JsonText utf8Text() throws IOException {
    if (input != null) {
      long at = p.currentTokenLocation().getByteOffset();
      int open = base + (int) at;
      if (at >= 0 && open < input.length && input[open] == '"') {
        int close = Utf8Strings.plainEnd(input, open + 1);
        if (close >= 0) {
          return JsonText.ofUtf8(Arrays.copyOfRange(input, open + 1, close));
        }
      }
    }
    return JsonText.of(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
  }

  @Override
  public void skipChildren() throws IOException {
    p.skipChildren();
  }
}
