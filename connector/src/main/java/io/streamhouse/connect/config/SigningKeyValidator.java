package io.streamhouse.connect.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** Empty, or a key of at least {@link #MIN_KEY_CHARS} characters; never echoes the key. */
public final class SigningKeyValidator implements ConfigDef.Validator {
  /** The shortest key the control-event signer takes. */
  public static final int MIN_KEY_CHARS = 16;

  static final SigningKeyValidator INSTANCE = new SigningKeyValidator();

  private SigningKeyValidator() {}

  @Override
  public void ensureValid(String name, Object value) {
    String key = value instanceof Password p ? p.value() : null;
    if (key != null && !key.isEmpty() && key.length() < MIN_KEY_CHARS) {
      throw new ConfigException(
          name
              + " has "
              + key.length()
              + " characters; a signing key needs at least "
              + MIN_KEY_CHARS
              + " (or leave it empty for a key the connector makes)");
    }
  }

  @Override
  public String toString() {
    return "empty, or at least " + MIN_KEY_CHARS + " characters";
  }
}
