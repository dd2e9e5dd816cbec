package io.streamhouse.connect.decode;

import io.streamhouse.connect.errors.RecordConversionException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Debezium's transaction metadata (provide.transaction.metadata=true), read from untrusted record
 * values: the id in a change event's {@code transaction} block, and the BEGIN and END events of the
 * transaction topic ({@code status}, {@code id}, and for an END the {@code event_count} of each of
 * its {@code data_collections}). Values are Connect structs or schemaless maps.
 */
public final class TransactionMetadata {
  /** The longest transaction id taken: ids travel in control events. */
  public static final int MAX_ID_CHARS = 256;

  /** The most data collections one END may list. */
  public static final int MAX_COLLECTIONS = 1_000;

  /** An event of the transaction topic: a BEGIN, or an END with its events per topic. */
  public record Event(String id, boolean begin, Map<String, Long> eventsByTopic) {}

  private TransactionMetadata() {}

  /**
   * The transaction of a change event; null for an event outside a transaction (a snapshot read, a
   * value without the block).
   *
   * @throws RecordConversionException if the block is there but its id is not a usable id
   */
  public static String transactionId(Object value) throws RecordConversionException {
    Object block = ChildValues.get(value, "transaction");
    if (block == null) {
      return null;
    }
    return id(ChildValues.get(block, "id"), "transaction.id");
  }

  /**
   * A BEGIN or END event of the transaction topic; {@code topicOf} names the topic of a data
   * collection.
   *
   * @throws RecordConversionException if it is neither, or malformed
   */
  public static Event event(Object value, UnaryOperator<String> topicOf)
      throws RecordConversionException {
    Object status = ChildValues.get(value, "status");
    String id = id(ChildValues.get(value, "id"), "id");
    if ("BEGIN".equals(status)) {
      return new Event(id, true, Map.of());
    }
    if (!"END".equals(status)) {
      throw new RecordConversionException(
          "status", "a transaction event's status is BEGIN or END, not '" + status + "'");
    }
    Object collections = ChildValues.get(value, "data_collections");
    if (!(collections instanceof List<?> list) || list.size() > MAX_COLLECTIONS) {
      throw new RecordConversionException(
          "data_collections",
          "an END event lists its data collections (at most " + MAX_COLLECTIONS + ")");
    }
    Map<String, Long> events = new HashMap<>();
    for (Object entry : list) {
      Object name = ChildValues.get(entry, "data_collection");
      Object count = ChildValues.get(entry, "event_count");
      if (!(name instanceof String collection)
          || collection.isEmpty()
          || collection.length() > MAX_ID_CHARS
          || !(count instanceof Number n)
          || n.longValue() < 0) {
        throw new RecordConversionException(
            "data_collections",
            "each data collection of an END event has a data_collection name and an event_count"
                + " of 0 or more");
      }
      events.merge(topicOf.apply(collection), n.longValue(), Long::sum);
    }
    return new Event(id, false, events);
  }

  private static String id(Object id, String field) throws RecordConversionException {
    if (!(id instanceof String s) || s.isEmpty() || s.length() > MAX_ID_CHARS || !printable(s)) {
      throw new RecordConversionException(
          field,
          "a transaction id is a string of 1 to "
              + MAX_ID_CHARS
              + " printable characters, not "
              + (id == null ? "null" : "a " + id.getClass().getSimpleName()));
    }
    return s;
  }

  private static boolean printable(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }
}
