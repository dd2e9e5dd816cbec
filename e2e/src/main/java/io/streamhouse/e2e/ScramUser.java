package io.streamhouse.e2e;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A SCRAM-SHA-512 user of a secured {@link LocalStack}; its credentials are written into the
 * cluster's metadata when the broker's storage is formatted ({@code kafka-storage format
 * --add-scram}).
 */
public record ScramUser(String name, String password) {
  public static final String MECHANISM = "SCRAM-SHA-512";

  public ScramUser {
    // Both end up inside the tool's [name=..,password=..] argument and a quoted JAAS option.
    if (!name.matches("[A-Za-z0-9_-]+") || !password.matches("[A-Za-z0-9_-]+")) {
      throw new IllegalArgumentException("Use letters, digits, '-' and '_' only: " + name);
    }
  }

  public String principal() {
    return "User:" + name;
  }

  /** The client's {@code sasl.jaas.config}. */
  public String jaasConfig() {
    return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
        + name
        + "\" password=\""
        + password
        + "\";";
  }

  /** Client settings that authenticate as this user over SASL_PLAINTEXT. */
  public Map<String, String> clientProperties() {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("security.protocol", "SASL_PLAINTEXT");
    props.put("sasl.mechanism", MECHANISM);
    props.put("sasl.jaas.config", jaasConfig());
    return props;
  }

  /** The value of StorageTool's {@code --add-scram}. */
  String storageToolArgument() {
    return MECHANISM + "=[name=" + name + ",password=" + password + "]";
  }
}
