package io.streamhouse.connect.testing;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Connector configs of the format tests: a catalog on local disk under a test's folder. */
public final class LocalCatalogConfigs {
  private LocalCatalogConfigs() {}

  /**
   * Connector {@code test-sink}, Iceberg catalog {@code local} (JDBC on SQLite in {@code dir}),
   * route {@code orders} from topic {@code orders} to {@code default.orders}, auto-created and
   * partitioned by {@code day(created_at),bucket(4,id)}. Mutable, for tests to add to.
   */
  public static Map<String, String> icebergOrders(Path dir) {
    Map<String, String> props = new HashMap<>();
    props.put("name", "test-sink");
    props.put("kafka.bootstrap.servers", "localhost:9092");
    props.put("catalogs", "local");
    props.put("catalog.local.type", "jdbc");
    props.put("catalog.local.uri", "jdbc:sqlite:" + dir.resolve("catalog.db"));
    props.put("catalog.local.warehouse", dir.resolve("warehouse").toString());
    props.put("routes", "orders");
    props.put("route.orders.topics", "orders");
    props.put("route.orders.auto-create", "true");
    props.put("route.orders.partition-by", "day(created_at),bucket(4,id)");
    return props;
  }

  /**
   * Connector {@code test-sink}, Paimon filesystem catalog {@code lake} in {@code dir}, route
   * {@code items} from topic {@code items} to {@code db.items}, auto-created with 2 buckets, then
   * {@code extra}. Mutable.
   */
  public static Map<String, String> paimonItems(Path dir, Map<String, String> extra) {
    Map<String, String> props = new HashMap<>();
    props.put("name", "test-sink");
    props.put("kafka.bootstrap.servers", "localhost:9092");
    props.put("catalogs", "lake");
    props.put("catalog.lake.format", "paimon");
    props.put("catalog.lake.type", "filesystem");
    props.put("catalog.lake.warehouse", dir.resolve("warehouse").toString());
    props.put("routes", "items");
    props.put("route.items.topics", "items");
    props.put("route.items.table", "db.items");
    props.put("route.items.auto-create", "true");
    props.put("route.items.buckets", "2");
    props.putAll(extra);
    return props;
  }
}
