package io.streamhouse.e2e;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A connector config file from {@code config-examples/}: {@code {"name": .., "config": {..}}}, the
 * body of {@code POST /connectors}. {@code ${VAR}} placeholders are filled from a map.
 */
public record ConnectorExample(String name, Map<String, String> config) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static ConnectorExample load(Path file) {
    return load(file, Map.of());
  }

  /**
   * Loads {@code file} and replaces each {@code ${KEY}} in the values by {@code
   * variables.get(KEY)}.
   */
  public static ConnectorExample load(Path file, Map<String, String> variables) {
    try {
      JsonNode root = JSON.readTree(file.toFile());
      if (!root.hasNonNull("name") || !root.path("config").isObject()) {
        throw new IllegalArgumentException(file + " must hold {\"name\": ..., \"config\": {...}}");
      }
      Map<String, String> config = JSON.convertValue(root.get("config"), new TypeReference<>() {});
      Map<String, String> resolved = new LinkedHashMap<>();
      config.forEach((k, v) -> resolved.put(k, substitute(v, variables)));
      return new ConnectorExample(root.get("name").asText(), resolved);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read connector config " + file, e);
    }
  }

  private static String substitute(String value, Map<String, String> variables) {
    String result = value;
    for (Map.Entry<String, String> v : variables.entrySet()) {
      result = result.replace("${" + v.getKey() + "}", v.getValue());
    }
    return result;
  }
}
