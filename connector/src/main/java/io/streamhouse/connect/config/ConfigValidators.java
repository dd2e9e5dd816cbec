package io.streamhouse.connect.config;

import io.streamhouse.connect.protocol.TopicNames;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The validators of our keys that Kafka's {@code ConfigDef} does not have, each a {@link
 * ConfigDef.LambdaValidator}: a check and the text the configuration reference shows for it.
 */
public final class ConfigValidators {
  /** The shortest signing key the control-event signer takes. */
  public static final int MIN_SIGNING_KEY_CHARS = 16;

  private static final Pattern COLUMN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]+");

  /**
   * A top-level column name that needs no quoting: a-z, A-Z, 0-9 and _, not starting with a digit.
   */
  static final ConfigDef.Validator COLUMN_NAME =
      ConfigDef.LambdaValidator.with(
          (name, value) -> {
            if (value == null || !COLUMN.matcher(value.toString()).matches()) {
              throw new ConfigException(
                  name,
                  value,
                  "is not a column name: use 1 to 128 of a-z, A-Z, 0-9 and _, not starting with a"
                      + " digit");
            }
          },
          () -> "a column name of a-z, A-Z, 0-9, _");

  /** A non-empty list of names made of a-z, A-Z, 0-9, '_' and '-' (they become key prefixes). */
  static final ConfigDef.Validator NAMES =
      ConfigDef.LambdaValidator.with(
          (name, value) -> {
            List<?> names = value instanceof List<?> list ? list : List.of();
            if (names.isEmpty()) {
              throw new ConfigException(name, value, "must list at least one name");
            }
            for (Object n : names) {
              if (!NAME.matcher(String.valueOf(n)).matches()) {
                throw new ConfigException(
                    name,
                    value,
                    "'" + n + "' is not a valid name: use only a-z, A-Z, 0-9, '_' and '-'");
              }
            }
          },
          () -> "non-empty list of names of a-z, A-Z, 0-9, _, -");

  /** Null or a valid Java regular expression. */
  static final ConfigDef.Validator PATTERN =
      ConfigDef.LambdaValidator.with(
          (name, value) -> {
            if (value == null) {
              return;
            }
            try {
              Pattern.compile(value.toString());
            } catch (PatternSyntaxException e) {
              throw new ConfigException(
                  name, value, "is not a valid regular expression: " + e.getDescription());
            }
          },
          () -> "a Java regular expression");

  /** A name Kafka accepts for a topic ({@link TopicNames}). */
  static final ConfigDef.Validator TOPIC_NAME =
      ConfigDef.LambdaValidator.with(
          (name, value) -> {
            if (!TopicNames.isLegal(value == null ? "" : value.toString())) {
              throw new ConfigException(
                  name,
                  value,
                  "must be a legal Kafka topic name: 1 to 249 characters of a-z, A-Z, 0-9, '.',"
                      + " '_', '-'");
            }
          },
          () -> "a legal Kafka topic name");

  /**
   * Empty, or a key of at least {@link #MIN_SIGNING_KEY_CHARS} characters; never echoes the key.
   */
  static final ConfigDef.Validator SIGNING_KEY =
      ConfigDef.LambdaValidator.with(
          (name, value) -> {
            String key = value instanceof Password p ? p.value() : null;
            if (key != null && !key.isEmpty() && key.length() < MIN_SIGNING_KEY_CHARS) {
              throw new ConfigException(
                  name
                      + " has "
                      + key.length()
                      + " characters; a signing key needs at least "
                      + MIN_SIGNING_KEY_CHARS
                      + " (or leave it empty for a key the connector makes)");
            }
          },
          () -> "empty, or at least " + MIN_SIGNING_KEY_CHARS + " characters");

  private ConfigValidators() {}

  /** Null (unset: a default that depends on other keys) or a number within {@code [min, max]}. */
  static ConfigDef.Validator nullOrBetween(Number min, Number max) {
    ConfigDef.Range range = ConfigDef.Range.between(min, max);
    return ConfigDef.LambdaValidator.with(
        (name, value) -> {
          if (value != null) {
            range.ensureValid(name, value);
          }
        },
        () -> "unset or [" + min + ",...," + max + "]");
  }

  /**
   * A list, possibly empty, of distinct words of {@code words}, in any case (Kafka's {@code
   * ValidList.in} differs between worker versions on empty lists).
   */
  static ConfigDef.Validator wordList(List<String> words) {
    List<String> allowed = List.copyOf(words);
    return ConfigDef.LambdaValidator.with(
        (name, value) -> {
          List<?> given = value instanceof List<?> list ? list : List.of();
          Set<String> seen = new HashSet<>();
          for (Object w : given) {
            String word = String.valueOf(w).trim().toLowerCase(Locale.ROOT);
            if (!allowed.contains(word)) {
              throw new ConfigException(name, value, "'" + w + "' is not one of " + allowed);
            }
            if (!seen.add(word)) {
              throw new ConfigException(name, value, "'" + w + "' is listed twice");
            }
          }
        },
        () -> "a list of " + String.join(", ", allowed));
  }
}
