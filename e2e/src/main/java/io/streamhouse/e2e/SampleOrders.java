package io.streamhouse.e2e;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Deterministic sample orders with a Connect schema, for the quickstart and the e2e tests. */
public final class SampleOrders {
  public static final ConnectJson.StructSchema SCHEMA =
      ConnectJson.struct("io.streamhouse.sample.Order")
          .field("id", "int64", false)
          .field("customer", "string", false)
          .field("amount", "double", false)
          .field("status", "string", true)
          .field(
              "created_at",
              Map.of(
                  "type",
                  "int64",
                  "optional",
                  false,
                  "name",
                  "org.apache.kafka.connect.data.Timestamp",
                  "version",
                  1));

  private static final String[] CUSTOMERS = {"alice", "bob", "carol", "dave", "erin", "frank"};
  private static final String[] STATUSES = {"NEW", "PAID", "SHIPPED", null};

  private SampleOrders() {}

  /** One order: the record key and the payload matching {@link #SCHEMA}. */
  public record Order(String key, Map<String, Object> payload) {}

  public static List<Order> generate(int count) {
    return generate(0, count);
  }

  /** Orders with ids {@code firstId .. firstId + count - 1}; the same ids give the same orders. */
  public static List<Order> generate(long firstId, int count) {
    List<Order> orders = new ArrayList<>(count);
    long baseTime = 1_767_225_600_000L; // 2026-01-01T00:00:00Z
    for (long id = firstId; id < firstId + count; id++) {
      Random random = new Random(id);
      Map<String, Object> payload = new LinkedHashMap<>();
      payload.put("id", id);
      payload.put("customer", CUSTOMERS[random.nextInt(CUSTOMERS.length)]);
      payload.put("amount", Math.round(random.nextDouble() * 100_000) / 100.0);
      payload.put("status", STATUSES[random.nextInt(STATUSES.length)]);
      payload.put("created_at", baseTime + id * 1000);
      orders.add(new Order("order-" + id, payload));
    }
    return orders;
  }
}
