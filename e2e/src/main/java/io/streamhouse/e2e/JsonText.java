package io.streamhouse.e2e;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Values to JSON text. */
public final class JsonText {
  private static final ObjectMapper JSON = new ObjectMapper();

  private JsonText() {}

  public static String of(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Cannot serialize " + value, e);
    }
  }
}
