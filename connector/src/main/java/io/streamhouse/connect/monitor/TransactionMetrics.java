package io.streamhouse.connect.monitor;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.LongSupplier;

/** The coordinator's metric of transaction-consistent CDC (task 0, with transactions.topic). */
public final class TransactionMetrics {
  public static final List<String> NAMES = List.of("transactions-incomplete-committed-total");

  private TransactionMetrics() {}

  /** Registers the count of source transactions committed incomplete. */
  public static void register(PluginGauges gauges, LongSupplier committedIncomplete) {
    gauges.register(
        NAMES.get(0),
        "Source transactions a round committed incomplete after waiting transactions.timeout.ms for"
            + " their missing events (a counter)",
        new LinkedHashMap<>(),
        (config, now) -> committedIncomplete.getAsLong());
  }
}
