package io.streamhouse.connect.config;

import java.util.Locale;

/**
 * What the lag monitor does when Kafka deleted records the sink never read ({@code
 * lag.on-data-loss}).
 */
public enum DataLossAction {
  /** Count and log the loss; the connector goes on. */
  WARN,
  /** Count and log the loss, then fail the connector. */
  FAIL;

  /** The word in a connector config. */
  public String configValue() {
    return name().toLowerCase(Locale.ROOT);
  }
}
