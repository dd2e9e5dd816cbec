package io.streamhouse.e2e;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/**
 * A deterministic source table of customers that changes: inserts, updates and deletes by key,
 * rendered as Kafka records in three shapes (plain upserts with tombstones, Debezium envelopes,
 * flattened Debezium rows), each with a Connect JSON schema. {@link #state()} is the source table
 * as of the last change: what a primary-key table fed by the records must equal.
 */
public final class SampleCustomers {
  public static final ConnectJson.StructSchema KEY =
      ConnectJson.struct("io.streamhouse.sample.CustomerKey").field("id", "int64", false);
  public static final ConnectJson.StructSchema ROW = row("io.streamhouse.sample.Customer");
  private static final ConnectJson.StructSchema FLAT =
      row("io.streamhouse.sample.CustomerFlat")
          .field("__op", "string", true)
          .field("__deleted", "string", true);
  private static final ConnectJson.StructSchema ENVELOPE =
      ConnectJson.struct("io.streamhouse.sample.Envelope")
          .field("before", row("io.streamhouse.sample.Customer").optional().toMap())
          .field("after", row("io.streamhouse.sample.Customer").optional().toMap())
          .field(
              "source",
              ConnectJson.struct("io.debezium.connector.postgresql.Source")
                  .field("db", "string", false)
                  .field("table", "string", false)
                  .field("lsn", "int64", false)
                  .toMap())
          .field("op", "string", false)
          .field("ts_ms", "int64", true);
  private static final String[] TIERS = {"free", "pro", "enterprise", null};

  /** One change of the source: after is null for a delete, before is null for an insert. */
  public record Change(
      long id, long sequence, Map<String, Object> before, Map<String, Object> after) {
    public boolean isDelete() {
      return after == null;
    }
  }

  private final Random random;
  private final int keys;
  private final double deleteShare;
  private final Map<Long, Map<String, Object>> state = new HashMap<>();
  private long sequence;

  /** Changes over ids {@code 0 .. keys-1}; about {@code deleteShare} of them are deletes. */
  public SampleCustomers(long seed, int keys, double deleteShare) {
    this.random = new Random(seed);
    this.keys = keys;
    this.deleteShare = deleteShare;
  }

  private static ConnectJson.StructSchema row(String name) {
    return ConnectJson.struct(name)
        .field("id", "int64", false)
        .field("name", "string", true)
        .field("tier", "string", true)
        .field("balance", "double", true)
        .field("version", "int64", false);
  }

  /** The next change; a delete hits a random id, which the source may not hold (a no-op there). */
  public Change next() {
    long id = random.nextInt(keys);
    long seq = sequence++;
    Map<String, Object> before = state.get(id);
    if (random.nextDouble() < deleteShare) {
      state.remove(id);
      return new Change(id, seq, before, null);
    }
    Map<String, Object> after = new LinkedHashMap<>();
    after.put("id", id);
    after.put("name", "customer-" + id + "-v" + seq);
    after.put("tier", TIERS[random.nextInt(TIERS.length)]);
    after.put("balance", Math.round(random.nextDouble() * 1_000_000) / 100.0);
    after.put("version", seq);
    state.put(id, after);
    return new Change(id, seq, before, after);
  }

  /** The source table now: id to row. */
  public Map<Long, Map<String, Object>> state() {
    return Map.copyOf(state);
  }

  /** The record key: a struct with the id, as a schema-enabled JsonConverter reads it. */
  public static String key(long id) {
    return JsonText.of(ConnectJson.envelope(KEY, Map.of("id", id)));
  }

  /** Upsert shape: the row, or null (a tombstone) for a delete. */
  public static String upsertValue(Change change) {
    return change.isDelete() ? null : JsonText.of(ConnectJson.envelope(ROW, change.after()));
  }

  /**
   * Debezium envelope shape; null for a delete of a row the source did not have (nothing to emit).
   */
  public static String debeziumValue(Change change) {
    if (change.isDelete() && change.before() == null) {
      return null;
    }
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("before", change.before());
    payload.put("after", change.after());
    payload.put("source", Map.of("db", "crm", "table", "customers", "lsn", change.sequence()));
    payload.put("op", change.isDelete() ? "d" : change.before() == null ? "c" : "u");
    payload.put("ts_ms", 1_767_225_600_000L + change.sequence());
    return JsonText.of(ConnectJson.envelope(ENVELOPE, payload));
  }

  /**
   * Flattened Debezium shape (ExtractNewRecordState with delete rewrite): row plus __op and
   * __deleted.
   */
  public static String flattenedValue(Change change) {
    if (change.isDelete() && change.before() == null) {
      return null;
    }
    Map<String, Object> payload =
        new LinkedHashMap<>(change.isDelete() ? change.before() : change.after());
    payload.put("__op", change.isDelete() ? "d" : change.before() == null ? "c" : "u");
    payload.put("__deleted", Boolean.toString(change.isDelete()));
    return JsonText.of(ConnectJson.envelope(FLAT, payload));
  }
}
