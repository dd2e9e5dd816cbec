package io.streamhouse.connect.config;

import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** Accepts only names Kafka accepts for a topic: 1 to 249 of [a-zA-Z0-9._-], not "." or "..". */
final class TopicNameValidator implements ConfigDef.Validator {
  static final TopicNameValidator INSTANCE = new TopicNameValidator();
  private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  private TopicNameValidator() {}

  @Override
  public void ensureValid(String name, Object value) {
    String topic = value == null ? "" : value.toString();
    if (!LEGAL.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
      throw new ConfigException(
          name,
          value,
          "must be a legal Kafka topic name: 1 to 249 characters of a-z, A-Z, 0-9, '.', '_', '-'");
    }
  }

  @Override
  public String toString() {
    return "a legal Kafka topic name";
  }
}
