package io.streamhouse.connect.converter;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigDecimal;

/**
 * The tokens of one JSON value as {@link PayloadDecoder} reads them: Jackson's streaming parser
 * ({@link JacksonTokens}) or the payload's own bytes ({@link ByteJsonTokens}). Token kinds, number
 * types and values are Jackson's, so that both read a value alike.
 */
interface JsonTokens {
  /** The next token; null after the last. */
  JsonToken next() throws IOException;

  JsonToken current();

  /** Whether the current field name is {@code name}. */
  boolean nameIs(String name) throws IOException;

  /** The current field name. */
  String name() throws IOException;

  /** Of the current integer: {@code INT} if it fits an int, {@code LONG} a long, else another. */
  JsonParser.NumberType numberType() throws IOException;

  long longValue() throws IOException;

  int intValue() throws IOException;

  /** The current number, exactly. */
  BigDecimal decimalValue() throws IOException;

  /** The current string. */
  String text() throws IOException;

  /** The current string as {@link JsonText}: its UTF-8 bytes where they are at hand. */
  JsonText utf8Text() throws IOException;

  /** At the start of an object or array: moves to its end. Otherwise nothing. */
  void skipChildren() throws IOException;
}
