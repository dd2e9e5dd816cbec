package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.LocalStack;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The connector configs of {@link FanoutBenchmark}'s runs (ours on Iceberg or Paimon, the Apache
 * Iceberg sink with dynamic routing) and the line that says what they set beyond the defaults.
 */
final class FanoutConfigs {
  /** The connector's commit.interval.ms when not set. */
  private static final String DEFAULT_COMMIT_INTERVAL_MS = "60000";

  private final String commitIntervalMs;
  private final Map<String, String> extra;

  /** {@code extra}: keys set on our connector beyond the defaults ({@code --set.<key> value}). */
  FanoutConfigs(String commitIntervalMs, Map<String, String> extra) {
    this.commitIntervalMs = commitIntervalMs;
    this.extra = Map.copyOf(extra);
  }

  /** The topic of the records for {@code tables} tables. */
  static String topic(int tables) {
    return "fanout-" + tables;
  }

  /**
   * The settings a user would not have written: ours get only commit.interval.ms (besides what they
   * need to run: catalog, route, auto-create, the primary key of a Paimon table, a control topic
   * per run); the Apache sink the same interval and earliest for its control topic's consumer.
   */
  String settingsLine() {
    String apache =
        " (the Apache sink: iceberg.control.commit.interval-ms="
            + commitIntervalMs
            + ", iceberg.kafka.auto.offset.reset=earliest)";
    String ours = new java.util.TreeMap<>(extra).toString();
    String set = extra.isEmpty() ? "" : ", on ours also " + ours.substring(1, ours.length() - 1);
    return commitIntervalMs.equals(DEFAULT_COMMIT_INTERVAL_MS)
        ? "non-default: none, commit.interval.ms="
            + commitIntervalMs
            + " is the default"
            + set
            + apache
        : "non-default: commit.interval.ms=" + commitIntervalMs + set + apache;
  }

  /**
   * Our sink, run {@code name}, into {@code format} tables: Paimon's under {@code warehouse},
   * Iceberg's in the catalog {@code icebergCatalog} configures ({@link FanoutCatalog#icebergKeys}).
   */
  Map<String, String> streamhouse(
      LocalStack stack,
      String format,
      String name,
      int tables,
      int tasks,
      Path warehouse,
      Map<String, String> icebergCatalog) {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", "io.streamhouse.connect.StreamhouseSinkConnector");
    c.put("topics", topic(tables));
    c.put("tasks.max", Integer.toString(tasks));
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("value.converter.schemas.enable", "true");
    c.put("kafka.bootstrap.servers", stack.bootstrapServers());
    c.put("catalogs", "bench");
    if (format.equals("paimon")) {
      c.put("catalog.bench.warehouse", warehouse.toString());
      c.put("catalog.bench.format", "paimon");
      c.put("catalog.bench.type", "filesystem");
      c.put("route.r.primary-key", "id"); // a primary-key table, the default buckets (1 here)
    } else {
      c.putAll(icebergCatalog);
    }
    c.put("routes", "r");
    c.put("route.r.topics", topic(tables));
    c.put("route.r.table.field", "table");
    c.put("route.r.table.allow-regex", "fanout_t[0-9]+");
    c.put("route.r.auto-create", "true");
    if (!commitIntervalMs.equals(DEFAULT_COMMIT_INTERVAL_MS)) {
      c.put("commit.interval.ms", commitIntervalMs);
    }
    // Not a tuning: one control topic per run keeps a run from reading the events of the last.
    c.put("control.topic", "ctl-" + name);
    c.putAll(extra);
    return c;
  }

  /**
   * The Apache Iceberg sink, run {@code name}, routing on the table field into a Hadoop catalog.
   */
  Map<String, String> apache(String name, int tables, int tasks, Path warehouse) {
    Map<String, String> c = new HashMap<>();
    c.put("connector.class", "org.apache.iceberg.connect.IcebergSinkConnector");
    c.put("topics", topic(tables));
    c.put("tasks.max", Integer.toString(tasks));
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("value.converter.schemas.enable", "true");
    c.put("iceberg.catalog.type", "hadoop");
    c.put("iceberg.catalog.warehouse", warehouse.toUri().toString());
    c.put("iceberg.tables.dynamic-enabled", "true");
    c.put("iceberg.tables.route-field", "table");
    c.put("iceberg.tables.auto-create-enabled", "true");
    c.put("iceberg.control.commit.interval-ms", commitIntervalMs);
    c.put("iceberg.kafka.auto.offset.reset", "earliest");
    c.put("iceberg.control.topic", "ctl-" + name);
    return c;
  }
}
