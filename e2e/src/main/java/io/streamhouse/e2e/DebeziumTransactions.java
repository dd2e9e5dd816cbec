package io.streamhouse.e2e;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The Kafka records a Debezium PostgreSQL connector with {@code provide.transaction.metadata=true}
 * writes for one source transaction, as JSON with schemas (what {@code JsonConverter} with {@code
 * schemas.enable=true} reads, keys too): {@code BEGIN} on {@code <prefix>.transaction}, the change
 * events on {@code <prefix>.<schema.table>} (envelopes with a {@code transaction} block), then
 * {@code END} with the event count per table. Tables are keyed by an int64 {@code id}.
 */
public final class DebeziumTransactions {
  /** One row change of a transaction; {@code before} is null for an insert. */
  public record Event(
      String dataCollection, long id, Map<String, Object> before, Map<String, Object> after) {
    String op() {
      return after == null ? "d" : before == null ? "c" : "u";
    }
  }

  /** One record to produce: a JSON key and a JSON value. */
  public record Message(String topic, String key, String value) {}

  private static final ConnectJson.StructSchema TX_KEY =
      ConnectJson.struct("io.debezium.connector.common.TransactionMetadataKey")
          .field("id", "string", false);
  private static final ConnectJson.StructSchema TX_VALUE =
      ConnectJson.struct("io.debezium.connector.common.TransactionMetadataValue")
          .field("status", "string", false)
          .field("id", "string", false)
          .field("event_count", "int64", true)
          .field("data_collections", dataCollectionsSchema())
          .field("ts_ms", "int64", false);

  private final String prefix;
  private final String database;
  private final Function<String, ConnectJson.StructSchema> rowSchema;
  private final Map<String, ConnectJson.StructSchema> envelopes = new LinkedHashMap<>();
  private final Map<String, ConnectJson.StructSchema> keys = new LinkedHashMap<>();

  /**
   * Records of the connector with topic prefix {@code prefix} (its {@code topic.prefix}) reading
   * database {@code database}; {@code rowSchema} gives a new row schema of the given name.
   */
  public DebeziumTransactions(
      String prefix, String database, Function<String, ConnectJson.StructSchema> rowSchema) {
    this.prefix = prefix;
    this.database = database;
    this.rowSchema = rowSchema;
  }

  /** The topic of a table, {@code dataCollection} being {@code schema.table}. */
  public String topicOf(String dataCollection) {
    return prefix + "." + dataCollection;
  }

  /** The transaction topic. */
  public String transactionTopic() {
    return prefix + ".transaction";
  }

  /**
   * The records of one transaction, in the order Debezium writes them: {@code BEGIN}, the events,
   * {@code END}. {@code lsn} is the log position of the first event, {@code tsMs} its time.
   */
  public List<Message> messages(String id, long txId, long lsn, long tsMs, List<Event> events) {
    List<Message> messages = new ArrayList<>();
    String key = JsonText.of(ConnectJson.envelope(TX_KEY, Map.of("id", id)));
    messages.add(new Message(transactionTopic(), key, marker("BEGIN", id, tsMs, null)));
    Map<String, Long> perTable = new LinkedHashMap<>();
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      long tableOrder = perTable.merge(e.dataCollection(), 1L, Long::sum);
      Map<String, Object> block = new LinkedHashMap<>();
      block.put("id", id);
      block.put("total_order", i + 1L);
      block.put("data_collection_order", tableOrder);
      messages.add(
          new Message(
              topicOf(e.dataCollection()),
              JsonText.of(
                  ConnectJson.envelope(keySchema(e.dataCollection()), Map.of("id", e.id()))),
              JsonText.of(
                  ConnectJson.envelope(
                      envelopeSchema(e.dataCollection()),
                      envelope(e, block, txId, lsn + i, tsMs)))));
    }
    messages.add(new Message(transactionTopic(), key, marker("END", id, tsMs, perTable)));
    return messages;
  }

  private Map<String, Object> envelope(
      Event e, Map<String, Object> block, long txId, long lsn, long tsMs) {
    String[] schemaAndTable = e.dataCollection().split("\\.", 2);
    Map<String, Object> source = new LinkedHashMap<>();
    source.put("version", "2.7.3.Final");
    source.put("connector", "postgresql");
    source.put("name", prefix);
    source.put("ts_ms", tsMs);
    source.put("db", database);
    source.put("schema", schemaAndTable[0]);
    source.put("table", schemaAndTable[1]);
    source.put("txId", txId);
    source.put("lsn", lsn);
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("before", e.before());
    payload.put("after", e.after());
    payload.put("source", source);
    payload.put("op", e.op());
    payload.put("ts_ms", tsMs + 3);
    payload.put("transaction", block);
    return payload;
  }

  /** A BEGIN (no counts) or END (the event count per table) value. */
  private static String marker(String status, String id, long tsMs, Map<String, Long> perTable) {
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("status", status);
    payload.put("id", id);
    payload.put(
        "event_count",
        perTable == null ? null : perTable.values().stream().mapToLong(Long::longValue).sum());
    List<Map<String, Object>> collections = null;
    if (perTable != null) {
      collections = new ArrayList<>();
      for (Map.Entry<String, Long> c : perTable.entrySet()) {
        collections.add(Map.of("data_collection", c.getKey(), "event_count", c.getValue()));
      }
    }
    payload.put("data_collections", collections);
    payload.put("ts_ms", tsMs);
    return JsonText.of(ConnectJson.envelope(TX_VALUE, payload));
  }

  private ConnectJson.StructSchema keySchema(String dataCollection) {
    return keys.computeIfAbsent(
        dataCollection, c -> ConnectJson.struct(topicOf(c) + ".Key").field("id", "int64", false));
  }

  private ConnectJson.StructSchema envelopeSchema(String dataCollection) {
    return envelopes.computeIfAbsent(
        dataCollection,
        c ->
            ConnectJson.struct(topicOf(c) + ".Envelope")
                .field("before", rowSchema.apply(topicOf(c) + ".Value").optional().toMap())
                .field("after", rowSchema.apply(topicOf(c) + ".Value").optional().toMap())
                .field("source", sourceSchema().toMap())
                .field("op", "string", false)
                .field("ts_ms", "int64", true)
                .field("transaction", blockSchema().toMap()));
  }

  private static ConnectJson.StructSchema sourceSchema() {
    return ConnectJson.struct("io.debezium.connector.postgresql.Source")
        .field("version", "string", false)
        .field("connector", "string", false)
        .field("name", "string", false)
        .field("ts_ms", "int64", false)
        .field("db", "string", false)
        .field("schema", "string", false)
        .field("table", "string", false)
        .field("txId", "int64", true)
        .field("lsn", "int64", true);
  }

  private static ConnectJson.StructSchema blockSchema() {
    return ConnectJson.struct("event.block")
        .field("id", "string", false)
        .field("total_order", "int64", false)
        .field("data_collection_order", "int64", false)
        .optional();
  }

  private static Map<String, Object> dataCollectionsSchema() {
    Map<String, Object> schema = new LinkedHashMap<>();
    schema.put("type", "array");
    schema.put(
        "items",
        ConnectJson.struct("io.debezium.connector.common.TransactionMetadataDataCollectionValue")
            .field("data_collection", "string", false)
            .field("event_count", "int64", false)
            .toMap());
    schema.put("optional", true);
    return schema;
  }
}
