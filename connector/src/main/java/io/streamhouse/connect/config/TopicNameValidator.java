package io.streamhouse.connect.config;

import io.streamhouse.connect.protocol.TopicNames;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** Accepts only names Kafka accepts for a topic ({@link TopicNames}). */
final class TopicNameValidator implements ConfigDef.Validator {
  static final TopicNameValidator INSTANCE = new TopicNameValidator();

  private TopicNameValidator() {}

  @Override
  public void ensureValid(String name, Object value) {
    if (!TopicNames.isLegal(value == null ? "" : value.toString())) {
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
