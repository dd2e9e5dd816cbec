package io.streamhouse.connect.config;

import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** Accepts one of a fixed set of lower-case words; lists them in errors and in the reference. */
final class EnumValidator implements ConfigDef.Validator {
  private final List<String> allowed;

  private EnumValidator(List<String> allowed) {
    this.allowed = allowed;
  }

  static EnumValidator of(String... allowed) {
    return new EnumValidator(List.of(allowed));
  }

  /** The constants of {@code type} as config words: lower case, {@code _} written {@code -}. */
  static <E extends Enum<E>> EnumValidator of(Class<E> type) {
    return new EnumValidator(
        java.util.Arrays.stream(type.getEnumConstants()).map(EnumValidator::word).toList());
  }

  /** The constant of {@code type} that {@code value} names (after validation, so it exists). */
  static <E extends Enum<E>> E parse(Class<E> type, String value) {
    return find(type, value).orElseThrow();
  }

  /**
   * The constant of {@code type} whose config word {@code value} is, in any case; empty if none.
   */
  static <E extends Enum<E>> java.util.Optional<E> find(Class<E> type, String value) {
    String word = value.trim().toLowerCase(Locale.ROOT);
    return java.util.Arrays.stream(type.getEnumConstants())
        .filter(constant -> word(constant).equals(word))
        .findFirst();
  }

  static String word(Enum<?> constant) {
    return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  @Override
  public void ensureValid(String name, Object value) {
    if (value == null) {
      return;
    }
    String text = value.toString().toLowerCase(Locale.ROOT);
    if (!allowed.contains(text)) {
      throw new ConfigException(name, value, "must be one of " + String.join(", ", allowed));
    }
  }

  @Override
  public String toString() {
    return String.join(", ", allowed);
  }
}
