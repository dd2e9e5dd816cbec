package io.streamhouse.connect.migration;

import static io.streamhouse.connect.migration.ApacheKeys.*;

import io.streamhouse.connect.config.KafkaClientsConfigDef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rules of the Apache sink's Kafka client keys ({@code iceberg.kafka.*} to our {@code
 * kafka.*}); without any bootstrap servers, the Connect worker's connection settings, as the Apache
 * sink takes them, but never its secrets.
 */
final class KafkaKeyRules {
  /** Kafka client settings of the worker that may be copied into a connector config. */
  private static final Set<String> WORKER_CLIENT_KEYS =
      Set.of(
          "bootstrap.servers",
          "client.dns.lookup",
          "security.protocol",
          "sasl.mechanism",
          "sasl.kerberos.service.name",
          "sasl.login.callback.handler.class",
          "sasl.client.callback.handler.class",
          "sasl.oauthbearer.token.endpoint.url",
          "ssl.protocol",
          "ssl.enabled.protocols",
          "ssl.endpoint.identification.algorithm",
          "ssl.truststore.location",
          "ssl.truststore.type",
          "ssl.keystore.location",
          "ssl.keystore.type");

  /** Secrets of the worker, never copied into a connector config (Connect stores it). */
  private static final List<String> WORKER_SECRET_KEYS =
      List.of(
          "sasl.jaas.config",
          "ssl.truststore.password",
          "ssl.keystore.password",
          "ssl.key.password");

  static final List<KeyRule> RULES =
      List.of(
          KeyRule.mappedUnder(KAFKA_PREFIX, in -> KafkaClientsConfigDef.PREFIX + in.rest()),
          KeyRule.key(KAFKA_BOOTSTRAP_SERVERS, KafkaKeyRules::bootstrapServers));

  private KafkaKeyRules() {}

  /** {@code iceberg.kafka.bootstrap.servers}, or when neither it nor ours is set, the worker's. */
  private static List<Effect> bootstrapServers(KeyRule.Input in) {
    String ours = KafkaClientsConfigDef.BOOTSTRAP_SERVERS_CONFIG;
    if (in.present()) {
      return List.of(new Effect.Mapped(ours, in.value(), in.key()));
    }
    if (in.config().has(ours)) {
      return List.of();
    }
    Map<String, String> worker = in.config().workerProperties().get();
    if (!worker.containsKey("bootstrap.servers")) {
      return List.of(); // our validation reports kafka.bootstrap.servers as missing
    }
    List<Effect> effects = new ArrayList<>();
    effects.add(
        new Effect.Warning(
            "Kafka connection settings ("
                + String.join(
                    ", ",
                    worker.keySet().stream().filter(WORKER_CLIENT_KEYS::contains).sorted().toList())
                + ") come from the Connect worker's properties file, as the Apache sink takes "
                + "them"));
    worker.forEach(
        (k, v) -> {
          if (WORKER_CLIENT_KEYS.contains(k)) {
            effects.add(
                new Effect.Mapped(KafkaClientsConfigDef.PREFIX + k, v, "worker properties"));
          }
        });
    for (String secret : WORKER_SECRET_KEYS) {
      String our = KafkaClientsConfigDef.PREFIX + secret;
      if (worker.containsKey(secret)
          && !in.config().has(our)
          && !in.config().has(KAFKA_PREFIX + secret)) {
        effects.add(
            new Effect.Refusal(
                our,
                "the Connect worker's properties set "
                    + secret
                    + " for its clients; this connector copies no secret from them into its "
                    + "configuration (Connect stores it in its config topic): set "
                    + KAFKA_PREFIX
                    + secret
                    + " or "
                    + our
                    + ", best through a config provider (${file:...})"));
      }
    }
    return effects;
  }
}
