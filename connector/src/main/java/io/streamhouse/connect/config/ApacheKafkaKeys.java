package io.streamhouse.connect.config;

import static io.streamhouse.connect.config.IcebergSinkCompat.*;

import java.util.Map;

/**
 * The Apache sink's Kafka client keys ({@code iceberg.kafka.*}), or the worker's connection
 * settings when there are none. Part of {@link IcebergSinkCompat}.
 */
final class ApacheKafkaKeys extends ApacheKeysTranslation {
  ApacheKafkaKeys(ApacheKeysTranslation shared) {
    super(shared);
  }

  void kafka() {
    withPrefix(KAFKA_PREFIX)
        .forEach((k, v) -> set(SinkConfigDef.KAFKA_PREFIX + k, v, KAFKA_PREFIX + k));
    if (given.containsKey(SinkConfigDef.KAFKA_BOOTSTRAP_SERVERS_CONFIG)
        || given.containsKey(KAFKA_PREFIX + "bootstrap.servers")) {
      return;
    }
    Map<String, String> worker = workerProperties.get();
    if (!worker.containsKey("bootstrap.servers")) {
      return; // our validation reports kafka.bootstrap.servers as missing
    }
    warnings.add(
        "Kafka connection settings ("
            + String.join(
                ", ",
                worker.keySet().stream().filter(WORKER_CLIENT_KEYS::contains).sorted().toList())
            + ") come from the Connect worker's properties file, as the Apache sink takes them");
    for (Map.Entry<String, String> e : worker.entrySet()) {
      if (WORKER_CLIENT_KEYS.contains(e.getKey())) {
        set(SinkConfigDef.KAFKA_PREFIX + e.getKey(), e.getValue(), "worker properties");
      }
    }
    for (String secret : WORKER_SECRET_KEYS) {
      String ours = SinkConfigDef.KAFKA_PREFIX + secret;
      if (worker.containsKey(secret)
          && !given.containsKey(ours)
          && !given.containsKey(KAFKA_PREFIX + secret)) {
        error(
            ours,
            "the Connect worker's properties set "
                + secret
                + " for its clients; this connector copies no secret from them into its "
                + "configuration (Connect stores it in its config topic): set "
                + KAFKA_PREFIX
                + secret
                + " or "
                + ours
                + ", best through a config provider (${file:...})");
      }
    }
  }
}
