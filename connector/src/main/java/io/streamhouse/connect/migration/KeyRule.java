package io.streamhouse.connect.migration;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * One row of the translation table: the Apache sink keys it covers (one key, or every key under a
 * prefix) and what each becomes, as {@link Effect}s. A rule of one key runs whether or not the key
 * is set (its value is then null), for the defaults of the Apache sink; a prefix rule runs once per
 * key under it. A key is translated by the most specific rule that covers it.
 *
 * @param key the Apache key, or the prefix
 * @param prefix whether {@code key} is a prefix
 * @param translate what the key becomes
 */
record KeyRule(String key, boolean prefix, Translate translate) {
  /** An Apache key met in a config: the key, what follows the rule's prefix, and its value. */
  record Input(String key, String rest, String value, ApacheConfig config, ApacheLayout layout) {
    boolean present() {
      return value != null;
    }
  }

  /** What one key becomes. */
  @FunctionalInterface
  interface Translate {
    List<Effect> apply(Input input);
  }

  static KeyRule key(String key, Translate translate) {
    return new KeyRule(key, false, translate);
  }

  static KeyRule under(String prefix, Translate translate) {
    return new KeyRule(prefix, true, translate);
  }

  /** {@code key} translated to {@code ourKey} as it is, trimmed. */
  static KeyRule mapped(String key, String ourKey) {
    return key(
        key,
        in ->
            in.present() ? List.of(new Effect.Mapped(ourKey, in.value().trim(), key)) : List.of());
  }

  /** Every key under {@code prefix} translated to the key of ours {@code ourKey} names. */
  static KeyRule mappedUnder(String prefix, Function<Input, String> ourKey) {
    return under(prefix, in -> List.of(new Effect.Mapped(ourKey.apply(in), in.value(), in.key())));
  }

  /** {@code key} is accepted and ignored, with a warning saying why it is not needed. */
  static KeyRule ignored(String key, String why) {
    return key(
        key,
        in ->
            in.present()
                ? List.of(new Effect.Warning(key + " is not needed here and is ignored: " + why))
                : List.of());
  }

  /** {@code key} is an error unless it is blank or false, saying why. */
  static KeyRule refusedUnlessFalse(String key, String why) {
    return key(
        key,
        in ->
            in.present() && !in.value().isBlank() && !in.value().trim().equalsIgnoreCase("false")
                ? List.of(new Effect.Refusal(key, why))
                : List.of());
  }

  /** {@code key} is an error when true, saying why (and when it is not a boolean). */
  static KeyRule refusedWhenTrue(String key, String why) {
    return key(
        key,
        in -> {
          List<Effect> effects = new ArrayList<>(notABoolean(in));
          if (in.config().bool(key, false)) {
            effects.add(new Effect.Refusal(key, "true is not supported: " + why));
          }
          return effects;
        });
  }

  /** A refusal when the key is set and is not a boolean. */
  static List<Effect> notABoolean(Input in) {
    return in.config()
        .booleanProblem(in.key())
        .<List<Effect>>map(p -> List.of(new Effect.Refusal(in.key(), p)))
        .orElse(List.of());
  }

  boolean covers(String k) {
    return prefix ? k.startsWith(key) && k.length() > key.length() : k.equals(key);
  }

  /**
   * The rule of {@code rules} that translates {@code k}: one of that key, else the longest prefix.
   */
  static Optional<KeyRule> of(Collection<KeyRule> rules, String k) {
    return rules.stream()
        .filter(r -> r.covers(k))
        .max(
            Comparator.comparing((KeyRule r) -> !r.prefix())
                .thenComparingInt(r -> r.key().length()));
  }

  /**
   * What this rule makes of {@code config}: for a key, once; for a prefix, once per given key under
   * it that this rule translates (of {@code all}, it is the most specific).
   */
  List<Effect> apply(ApacheConfig config, ApacheLayout layout, Collection<KeyRule> all) {
    if (!prefix) {
      return translate.apply(new Input(key, "", config.raw(key), config, layout));
    }
    List<Effect> effects = new ArrayList<>();
    config
        .given()
        .forEach(
            (k, v) -> {
              if (covers(k) && ApacheKeys.isApacheKey(k) && of(all, k).orElseThrow() == this) {
                effects.addAll(
                    translate.apply(new Input(k, k.substring(key.length()), v, config, layout)));
              }
            });
    return effects;
  }
}
