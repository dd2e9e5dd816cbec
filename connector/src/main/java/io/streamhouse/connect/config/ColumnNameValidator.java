package io.streamhouse.connect.config;

import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * A top-level column name that needs no quoting: a-z, A-Z, 0-9 and _, not starting with a digit.
 */
final class ColumnNameValidator implements ConfigDef.Validator {
  static final ColumnNameValidator INSTANCE = new ColumnNameValidator();
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

  private ColumnNameValidator() {}

  @Override
  public void ensureValid(String name, Object value) {
    if (value == null || !NAME.matcher(value.toString()).matches()) {
      throw new ConfigException(
          name,
          value,
          "is not a column name: use 1 to 128 of a-z, A-Z, 0-9 and _, not starting with a digit");
    }
  }

  @Override
  public String toString() {
    return "a column name of a-z, A-Z, 0-9, _";
  }
}
