package io.streamhouse.connect.config;

import java.util.List;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** A non-empty list of names made of a-z, A-Z, 0-9, '_' and '-' (they become key prefixes). */
final class NamesValidator implements ConfigDef.Validator {
  static final NamesValidator INSTANCE = new NamesValidator();
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]+");

  private NamesValidator() {}

  @Override
  public void ensureValid(String name, Object value) {
    List<?> names = value instanceof List<?> list ? list : List.of();
    if (names.isEmpty()) {
      throw new ConfigException(name, value, "must list at least one name");
    }
    for (Object n : names) {
      if (!NAME.matcher(String.valueOf(n)).matches()) {
        throw new ConfigException(
            name, value, "'" + n + "' is not a valid name: use only a-z, A-Z, 0-9, '_' and '-'");
      }
    }
  }

  @Override
  public String toString() {
    return "non-empty list of names of a-z, A-Z, 0-9, _, -";
  }
}
