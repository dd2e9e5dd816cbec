package io.streamhouse.connect.config;

import org.apache.kafka.common.config.ConfigDef;

/** Accepts null (unset: a default that depends on other keys) or a number within a range. */
final class NullOrRange implements ConfigDef.Validator {
  private final ConfigDef.Range range;
  private final String text;

  private NullOrRange(ConfigDef.Range range, String text) {
    this.range = range;
    this.text = text;
  }

  static NullOrRange between(Number min, Number max) {
    return new NullOrRange(
        ConfigDef.Range.between(min, max), "unset or [" + min + ",...," + max + "]");
  }

  @Override
  public void ensureValid(String name, Object value) {
    if (value != null) {
      range.ensureValid(name, value);
    }
  }

  @Override
  public String toString() {
    return text;
  }
}
