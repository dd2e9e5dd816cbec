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
