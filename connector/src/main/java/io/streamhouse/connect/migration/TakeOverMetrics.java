package io.streamhouse.connect.migration;

import io.streamhouse.connect.monitor.PluginGauges;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.LongSupplier;
import org.apache.kafka.common.metrics.Gauge;

/**
 * Task 0's take-over from the Apache Iceberg sink: whether it is still pending (the coordinator
 * runs no round until it is done) and how many of that sink's control events it refused.
 */
public final class TakeOverMetrics {
  public static final List<String> NAMES =
      List.of("apache-takeover-pending", "apache-takeover-events-rejected-total");

  private volatile boolean pending = true;

  TakeOverMetrics(PluginGauges gauges, LongSupplier eventsRejected) {
    LinkedHashMap<String, String> tags = new LinkedHashMap<>();
    gauges.register(
        NAMES.get(0),
        "1 while the take-over from the Apache Iceberg sink has not finished (no commit round runs "
            + "until it has), 0 after",
        tags,
        (Gauge<Integer>) (config, now) -> pending ? 1 : 0);
    gauges.register(
        NAMES.get(1),
        "Events of the Apache sink's control topic the take-over refused: undecodable, oversized, "
            + "or naming files that are not the table's (a counter)",
        tags,
        (Gauge<Long>) (config, now) -> eventsRejected.getAsLong());
  }

  void done() {
    pending = false;
  }
}
