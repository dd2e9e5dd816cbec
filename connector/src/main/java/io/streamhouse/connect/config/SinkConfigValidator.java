package io.streamhouse.connect.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;

/**
 * Validation of a whole configuration: every key of the static, catalog and route definitions, then
 * the cross-field rules. In the REST validate call each error is attached to the key it concerns;
 * at start-up the same checks fail the connector with every error in one message.
 */
public final class SinkConfigValidator {
  static final String TOPICS_CONFIG = "topics";
  static final String TOPICS_REGEX_CONFIG = "topics.regex";

  private SinkConfigValidator() {}

  /** Per-key and cross-field validation of {@code props}, written with this connector's keys. */
  public static Config validate(Map<String, String> props) {
    return validate(TranslatedConfig.untranslated(props));
  }

  /**
   * Per-key and cross-field validation of {@code translated}'s props, with the translation's own
   * errors; an error of a key of ours goes to the given key it was translated from.
   */
  public static Config validate(TranslatedConfig translated) {
    Map<String, String> given = translated.given();
    Map<String, String> props = translated.props();
    Map<String, ConfigValue> byName = new LinkedHashMap<>();
    for (ConfigValue value : SinkConfigDef.enriched(props).validate(props)) {
      byName.put(value.name(), value);
    }
    BiConsumer<String, String> error =
        (key, message) ->
            byName
                .computeIfAbsent(
                    key,
                    k ->
                        new ConfigValue(
                            k,
                            props.containsKey(k) ? props.get(k) : given.get(k),
                            List.of(),
                            new ArrayList<>()))
                .addErrorMessage(message);
    if (hasNoErrors(byName, SinkConfigDef.CONTROL_TOPIC_CONFIG)) {
      checkControlTopicIsNotSunk(
          String.valueOf(byName.get(SinkConfigDef.CONTROL_TOPIC_CONFIG).value()), props, error);
    }
    CrossFieldRules.check(props, byName, error);
    checkFaultInjectionIsAllowed(props, error);
    translated.errors().forEach((key, messages) -> messages.forEach(m -> error.accept(key, m)));
    blameTheGivenKeys(translated, byName, error);
    return new Config(new ArrayList<>(byName.values()));
  }

  /**
   * An error on one of our keys that a given key (of the Apache Iceberg sink) was translated to
   * goes to that key, the one the user wrote.
   */
  private static void blameTheGivenKeys(
      TranslatedConfig translated,
      Map<String, ConfigValue> byName,
      BiConsumer<String, String> error) {
    for (ConfigValue value : List.copyOf(byName.values())) {
      String origin = translated.originOf(value.name());
      if (origin == null
          || !translated.given().containsKey(origin)
          || value.errorMessages().isEmpty()) {
        continue;
      }
      List<String> messages = List.copyOf(value.errorMessages());
      ConfigValue cleared =
          new ConfigValue(
              value.name(), value.value(), value.recommendedValues(), new ArrayList<>());
      cleared.visible(value.visible());
      byName.put(value.name(), cleared);
      for (String message : messages) {
        error.accept(origin, origin + " (as " + value.name() + "): " + message);
      }
    }
  }

  /** Throws one {@link ConfigException} listing every error, or returns if the config is valid. */
  public static void requireValid(TranslatedConfig translated) {
    List<String> errors = new ArrayList<>();
    for (ConfigValue value : validate(translated).configValues()) {
      errors.addAll(value.errorMessages());
    }
    if (!errors.isEmpty()) {
      String name =
          translated.given().getOrDefault(StreamhouseSinkConfig.CONNECTOR_NAME_CONFIG, "unnamed");
      throw new ConfigException(
          "Connector " + name + " has an invalid configuration: " + String.join("; ", errors));
    }
  }

  static boolean hasNoErrors(Map<String, ConfigValue> byName, String key) {
    ConfigValue value = byName.get(key);
    return value != null && value.errorMessages().isEmpty();
  }

  /**
   * The test-only fault injection halts the whole worker JVM: a connector config may arm it only on
   * a worker started for tests (see {@link SinkConfigDef#FAULT_INJECTION_PROPERTY}).
   */
  private static void checkFaultInjectionIsAllowed(
      Map<String, String> props, BiConsumer<String, String> error) {
    String setting = props.get(SinkConfigDef.HALT_AT_CONFIG);
    if (setting != null && !setting.isBlank() && !faultInjectionAllowed()) {
      error.accept(SinkConfigDef.HALT_AT_CONFIG, faultInjectionRefusal());
    }
  }

  /** Whether this JVM was started with fault injection allowed. */
  public static boolean faultInjectionAllowed() {
    return "enabled".equals(System.getProperty(SinkConfigDef.FAULT_INJECTION_PROPERTY));
  }

  public static String faultInjectionRefusal() {
    return SinkConfigDef.HALT_AT_CONFIG
        + " is test-only fault injection, and this Connect worker was not started "
        + "with -D"
        + SinkConfigDef.FAULT_INJECTION_PROPERTY
        + "=enabled: remove the key";
  }

  private static void checkControlTopicIsNotSunk(
      String controlTopic, Map<String, String> props, BiConsumer<String, String> error) {
    if (SinkConfigDef.names(props.get(TOPICS_CONFIG)).contains(controlTopic)) {
      error.accept(
          SinkConfigDef.CONTROL_TOPIC_CONFIG,
          SinkConfigDef.CONTROL_TOPIC_CONFIG
              + " '"
              + controlTopic
              + "' is also listed in "
              + TOPICS_CONFIG
              + ": the control topic must not be sunk");
    }
    String regex = props.get(TOPICS_REGEX_CONFIG);
    if (regex != null && !regex.isBlank()) {
      try {
        if (Pattern.compile(regex).matcher(controlTopic).matches()) {
          error.accept(
              SinkConfigDef.CONTROL_TOPIC_CONFIG,
              SinkConfigDef.CONTROL_TOPIC_CONFIG
                  + " '"
                  + controlTopic
                  + "' matches "
                  + TOPICS_REGEX_CONFIG
                  + " '"
                  + regex
                  + "': the control topic must not be sunk");
        }
      } catch (PatternSyntaxException e) {
        // Connect reports the bad regex on topics.regex itself.
      }
    }
  }
}
