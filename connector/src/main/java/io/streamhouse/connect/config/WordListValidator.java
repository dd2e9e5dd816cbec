package io.streamhouse.connect.config;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * A list, possibly empty, of distinct words from a fixed set, in any case (Kafka's {@code
 * ValidList.in} differs between worker versions on empty lists).
 */
final class WordListValidator implements ConfigDef.Validator {
  private final List<String> words;

  WordListValidator(List<String> words) {
    this.words = List.copyOf(words);
  }

  @Override
  public void ensureValid(String name, Object value) {
    List<?> given = value instanceof List<?> list ? list : List.of();
    Set<String> seen = new HashSet<>();
    for (Object w : given) {
      String word = String.valueOf(w).trim().toLowerCase(Locale.ROOT);
      if (!words.contains(word)) {
        throw new ConfigException(name, value, "'" + w + "' is not one of " + words);
      }
      if (!seen.add(word)) {
        throw new ConfigException(name, value, "'" + w + "' is listed twice");
      }
    }
  }

  @Override
  public String toString() {
    return "a list of " + String.join(", ", words);
  }
}
