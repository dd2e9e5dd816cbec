package io.streamhouse.connect.migration;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Turns a configuration of the Apache Iceberg Kafka Connect sink (1.10 to 1.12: {@code
 * iceberg.tables}, {@code iceberg.catalog.*}, {@code iceberg.control.*}, ...) into this connector's
 * keys, before validation: the rules of the translation table ({@link CatalogKeyRules}, {@link
 * KafkaKeyRules}, {@link CommitKeyRules}, {@link TableKeyRules}) applied to the config, one pure
 * function. Every Apache key is mapped onto ours, or is an error naming the key and why it is not
 * supported, or (the keys of the Apache sink's own commit machinery, which this connector does not
 * need) a warning; README, "Switching from the Apache Iceberg sink", has the table. Keys of ours
 * set beside the Apache ones win over what the Apache ones map to.
 */
public final class ApacheConfigTranslation {
  /** The translation table. */
  static final List<KeyRule> RULES =
      Stream.of(
              CatalogKeyRules.RULES, KafkaKeyRules.RULES, CommitKeyRules.RULES, TableKeyRules.RULES)
          .flatMap(List::stream)
          .toList();

  private ApacheConfigTranslation() {}

  /** True when {@code props} holds a key of the Apache Iceberg sink (any unknown iceberg.* key). */
  public static boolean applies(Map<String, String> props) {
    return props.keySet().stream().anyMatch(ApacheKeys::isApacheKey);
  }

  /**
   * Translates {@code given}; the Connect worker's properties file (found as the Apache sink finds
   * it) supplies the Kafka connection settings when the config has none. A config without Apache
   * keys is left as it is.
   */
  public static Translation translate(Map<String, String> given) {
    return translate(given, WorkerProperties::ofThisJvm);
  }

  static Translation translate(
      Map<String, String> given, Supplier<Map<String, String>> workerProperties) {
    if (!applies(given)) {
      return Translation.untranslated(given);
    }
    ApacheConfig config = new ApacheConfig(given, workerProperties);
    ApacheLayout layout = ApacheLayout.of(config);
    List<Effect> effects = new ArrayList<>();
    for (KeyRule rule : RULES) {
      effects.addAll(rule.apply(config, layout, RULES));
    }
    for (String key : given.keySet()) {
      if (ApacheKeys.isApacheKey(key) && KeyRule.of(RULES, key).isEmpty()) {
        effects.add(
            new Effect.Refusal(
                key,
                "is not a key of the Apache Iceberg sink (1.10 to 1.12) nor of this connector; "
                    + "remove it"));
      }
    }
    return Translation.of(given, effects);
  }
}
