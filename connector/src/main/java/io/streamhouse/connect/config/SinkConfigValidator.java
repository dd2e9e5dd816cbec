package io.streamhouse.connect.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;

/**
 * Cross-field checks. In the REST validate call each error is attached to the key it concerns; at
 * start-up the same checks fail the connector with every error in one message.
 */
public final class SinkConfigValidator {
  static final String TOPICS_CONFIG = "topics";
  static final String TOPICS_REGEX_CONFIG = "topics.regex";

  private SinkConfigValidator() {}

  /** Adds the cross-field errors to a validation result that already has the per-key ones. */
  public static Config validate(Config perKey, Map<String, String> props) {
    Map<String, ConfigValue> byName = new LinkedHashMap<>();
    for (ConfigValue value : perKey.configValues()) {
      byName.put(value.name(), value);
    }
    ConfigValue controlTopic = byName.get(SinkConfigDef.CONTROL_TOPIC_CONFIG);
    if (controlTopic != null && controlTopic.errorMessages().isEmpty()) {
      String topic = String.valueOf(controlTopic.value());
      checkControlTopicIsNotSunk(topic, props).ifPresent(controlTopic::addErrorMessage);
    }
    return new Config(new ArrayList<>(byName.values()));
  }

  /** Throws one {@link ConfigException} listing every error, or returns if the config is valid. */
  public static void requireValid(Map<String, String> props) {
    List<ConfigValue> values = SinkConfigDef.CONFIG.validate(props);
    Config result = validate(new Config(values), props);
    List<String> errors = new ArrayList<>();
    for (ConfigValue value : result.configValues()) {
      for (String message : value.errorMessages()) {
        errors.add(message);
      }
    }
    if (!errors.isEmpty()) {
      String name = props.getOrDefault(StreamhouseSinkConfig.CONNECTOR_NAME_CONFIG, "unnamed");
      throw new ConfigException(
          "Connector " + name + " has an invalid configuration: " + String.join("; ", errors));
    }
  }

  private static Optional<String> checkControlTopicIsNotSunk(
      String controlTopic, Map<String, String> props) {
    String topics = props.get(TOPICS_CONFIG);
    if (topics != null && Arrays.stream(topics.split(",")).map(String::trim)
        .anyMatch(controlTopic::equals)) {
      return Optional.of(SinkConfigDef.CONTROL_TOPIC_CONFIG + " '" + controlTopic
          + "' is also listed in " + TOPICS_CONFIG + ": the control topic must not be sunk");
    }
    String regex = props.get(TOPICS_REGEX_CONFIG);
    if (regex != null && !regex.isBlank()) {
      try {
        if (Pattern.compile(regex).matcher(controlTopic).matches()) {
          return Optional.of(SinkConfigDef.CONTROL_TOPIC_CONFIG + " '" + controlTopic
              + "' matches " + TOPICS_REGEX_CONFIG + " '" + regex
              + "': the control topic must not be sunk");
        }
      } catch (PatternSyntaxException e) {
        return Optional.empty(); // Connect reports the bad regex on topics.regex itself.
      }
    }
    return Optional.empty();
  }
}
