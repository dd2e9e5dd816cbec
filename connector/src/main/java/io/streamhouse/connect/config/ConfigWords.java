package io.streamhouse.connect.config;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Enum constants as config words (lower case, {@code _} written {@code -}) and back; the validator
 * of a word key is Kafka's case-insensitive {@link ConfigDef.CaseInsensitiveValidString}.
 */
final class ConfigWords {
  private ConfigWords() {}

  /** Accepts one of {@code words}, in any case. */
  static ConfigDef.Validator oneOf(String... words) {
    return ConfigDef.CaseInsensitiveValidString.in(words);
  }

  /** Accepts the config word of a constant of {@code type}, in any case. */
  static <E extends Enum<E>> ConfigDef.Validator oneOf(Class<E> type) {
    return oneOf(
        Arrays.stream(type.getEnumConstants()).map(ConfigWords::word).toArray(String[]::new));
  }

  /** The constant of {@code type} that {@code value} names (after validation, so it exists). */
  static <E extends Enum<E>> E parse(Class<E> type, String value) {
    return find(type, value).orElseThrow();
  }

  /**
   * The constant of {@code type} whose config word {@code value} is, in any case; empty if none.
   */
  static <E extends Enum<E>> Optional<E> find(Class<E> type, String value) {
    String word = value.trim().toLowerCase(Locale.ROOT);
    return Arrays.stream(type.getEnumConstants())
        .filter(constant -> word(constant).equals(word))
        .findFirst();
  }

  static String word(Enum<?> constant) {
    return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
