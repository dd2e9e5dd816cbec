package io.streamhouse.connect.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The keys of the connector's own Kafka clients ({@code kafka.*}: the control topic's and the lag
 * monitor's), part of {@link SinkConfigDef}: Connect does not hand the worker's client settings to
 * tasks, so the connector takes its own.
 */
public final class KafkaClientsConfigDef {
  public static final String GROUP = "Kafka clients";

  /** Prefix of the Kafka client settings of the control topic (and the lag monitor). */
  public static final String PREFIX = "kafka.";

  public static final String BOOTSTRAP_SERVERS_CONFIG = "kafka.bootstrap.servers";
  static final String BOOTSTRAP_SERVERS_DOC =
      "Bootstrap servers of the Kafka cluster the connector consumes from, for its own clients "
          + "(control topic, lag monitor). Connect does not hand the worker's settings to tasks. Any "
          + "other client setting can be given as kafka.<setting> (security.protocol, sasl.mechanism, ...).";
  public static final String SASL_JAAS_CONFIG = "kafka.sasl.jaas.config";
  public static final String SSL_KEYSTORE_PASSWORD = "kafka.ssl.keystore.password";
  public static final String SSL_TRUSTSTORE_PASSWORD = "kafka.ssl.truststore.password";
  public static final String SSL_KEY_PASSWORD = "kafka.ssl.key.password";

  private KafkaClientsConfigDef() {}

  /** {@code def} with the keys of the connector's own Kafka clients added. */
  static ConfigDef define(ConfigDef def) {
    return def.define(
            BOOTSTRAP_SERVERS_CONFIG,
            Type.STRING,
            ConfigDef.NO_DEFAULT_VALUE,
            new ConfigDef.NonEmptyString(),
            Importance.HIGH,
            BOOTSTRAP_SERVERS_DOC,
            GROUP,
            1,
            Width.LONG,
            "Bootstrap servers")
        .define(
            SASL_JAAS_CONFIG,
            Type.PASSWORD,
            null,
            Importance.MEDIUM,
            "JAAS configuration of the connector's own Kafka clients (SASL).",
            GROUP,
            2,
            Width.LONG,
            "SASL JAAS config")
        .define(
            SSL_KEYSTORE_PASSWORD,
            Type.PASSWORD,
            null,
            Importance.LOW,
            "Key store password of the connector's own Kafka clients.",
            GROUP,
            3,
            Width.SHORT,
            "Key store password")
        .define(
            SSL_TRUSTSTORE_PASSWORD,
            Type.PASSWORD,
            null,
            Importance.LOW,
            "Trust store password of the connector's own Kafka clients.",
            GROUP,
            4,
            Width.SHORT,
            "Trust store password")
        .define(
            SSL_KEY_PASSWORD,
            Type.PASSWORD,
            null,
            Importance.LOW,
            "Private key password of the connector's own Kafka clients.",
            GROUP,
            5,
            Width.SHORT,
            "Key password");
  }
}
