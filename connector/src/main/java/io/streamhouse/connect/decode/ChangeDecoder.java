package io.streamhouse.connect.decode;

import io.streamhouse.connect.errors.RecordConversionException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * What a record means for a primary-key table of either format (Paimon or Iceberg), by the route's
 * {@code input}:
 *
 * <ul>
 *   <li>{@code upsert}: the value is the row (insert or replace); a tombstone deletes by key.
 *   <li>{@code debezium}: an envelope ({@code op} c/r → insert, u → update, d → delete of {@code
 *       before}), or a flattened row whose {@code __deleted} / {@code __op} fields say the same; a
 *       tombstone (Debezium's compaction marker after a delete) deletes by key.
 * </ul>
 *
 * A delete that has only the Kafka key is "key only": its other columns are null.
 */
public final class ChangeDecoder {
  /** What a change does to its key's row. */
  public enum Kind {
    INSERT,
    UPDATE_AFTER,
    DELETE
  }

  /** One change: its kind, the row (a struct or a map) and whether it carries only the key. */
  public record Change(Kind kind, Object row, boolean keyOnly) {}

  private final boolean debezium;
  private final List<String> primaryKey;

  public ChangeDecoder(InputMode input, List<String> primaryKey) {
    this.debezium = input == InputMode.DEBEZIUM;
    this.primaryKey = primaryKey;
  }

  public Change decode(SinkRecord record) throws RecordConversionException {
    Object value = record.value();
    if (value == null) {
      return new Change(Kind.DELETE, keyRow(record), true);
    }
    if (!debezium) {
      return new Change(Kind.INSERT, value, false);
    }
    if (Envelopes.isEnvelope(value)) {
      String op = string(Envelopes.field(value, "op"));
      if (op == null) {
        throw new RecordConversionException("op", "the Debezium envelope has no op");
      }
      return switch (op) {
        case "c", "r" -> new Change(Kind.INSERT, image(value, "after", op), false);
        case "u" -> new Change(Kind.UPDATE_AFTER, image(value, "after", op), false);
        case "d" -> {
          Object before = Envelopes.field(value, "before");
          yield before != null
              ? new Change(Kind.DELETE, before, false)
              : new Change(Kind.DELETE, keyRow(record), true);
        }
        default ->
            throw new RecordConversionException(
                "op", "unknown Debezium op '" + op + "' (expected c, r, u or d)");
      };
    }
    Object deleted = Envelopes.field(value, Envelopes.DELETED_FIELD);
    String op = string(Envelopes.field(value, Envelopes.OP_FIELD));
    if (Boolean.TRUE.equals(deleted)
        || "true".equalsIgnoreCase(string(deleted))
        || "d".equals(op)) {
      return new Change(Kind.DELETE, value, false);
    }
    if (op == null || op.equals("c") || op.equals("r")) {
      return new Change(Kind.INSERT, value, false);
    }
    if (op.equals("u")) {
      return new Change(Kind.UPDATE_AFTER, value, false);
    }
    throw new RecordConversionException(
        Envelopes.OP_FIELD, "unknown Debezium op '" + op + "' (expected c, r, u or d)");
  }

  private static Object image(Object envelope, String name, String op)
      throws RecordConversionException {
    Object image = Envelopes.field(envelope, name);
    if (image == null) {
      throw new RecordConversionException(
          name, "a Debezium '" + op + "' event without '" + name + "'");
    }
    return image;
  }

  /**
   * The primary key from the Kafka key: a struct or map by field name, or a primitive for a
   * one-column key.
   */
  private Object keyRow(SinkRecord record) throws RecordConversionException {
    Object key = record.key();
    if (key == null) {
      throw new RecordConversionException(
          "<key>", "a delete (tombstone) without a Kafka key cannot name " + "the row to delete");
    }
    if (key instanceof Struct || key instanceof Map) {
      return key;
    }
    if (primaryKey.size() == 1) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put(primaryKey.get(0), key);
      return row;
    }
    throw new RecordConversionException(
        "<key>",
        "the Kafka key is a "
            + key.getClass().getSimpleName()
            + " but the primary key has "
            + primaryKey.size()
            + " columns "
            + primaryKey
            + ": a delete needs a struct or JSON object key");
  }

  private static String string(Object v) {
    return v == null ? null : v.toString();
  }
}
