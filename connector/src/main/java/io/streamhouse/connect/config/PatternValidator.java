package io.streamhouse.connect.config;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** Accepts null or a valid Java regular expression. */
final class PatternValidator implements ConfigDef.Validator {
  static final PatternValidator INSTANCE = new PatternValidator();

  private PatternValidator() {}

  @Override
  public void ensureValid(String name, Object value) {
    if (value == null) {
      return;
    }
    try {
      Pattern.compile(value.toString());
    } catch (PatternSyntaxException e) {
      throw new ConfigException(
          name, value, "is not a valid regular expression: " + e.getDescription());
    }
  }

  @Override
  public String toString() {
    return "a Java regular expression";
  }
}
