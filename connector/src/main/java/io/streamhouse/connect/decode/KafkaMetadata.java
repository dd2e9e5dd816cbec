package io.streamhouse.connect.decode;

import io.streamhouse.connect.errors.RecordConversionException;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The Kafka metadata a route writes into one struct column of its tables ({@code
 * route.<name>.kafka-metadata}, {@code route.<name>.kafka-metadata.column}): per record its
 * original topic, partition and offset (before any transform renamed them), its Kafka timestamp,
 * its key and its headers as bounded text ({@link MetadataText}). Everything comes from the record,
 * nothing from the clock, so a replay writes the same values.
 */
public record KafkaMetadata(String column, Set<Part> parts) {
  /** The default name of the column. */
  public static final String DEFAULT_COLUMN = "_kafka";

  /** At most this many headers of a record are copied, in their order; the rest are dropped. */
  public static final int MAX_HEADERS = 64;

  /** A header whose name is longer than this many characters is dropped. */
  public static final int MAX_HEADER_NAME_CHARS = 256;

  /** A route without metadata. */
  public static final KafkaMetadata NONE = new KafkaMetadata(DEFAULT_COLUMN, Set.of());

  /** One field of the column, in the column's order. */
  public enum Part {
    TOPIC,
    PARTITION,
    OFFSET,
    TIMESTAMP,
    KEY,
    HEADERS;

    /** The field's name in the column and in the config. */
    public String word() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public KafkaMetadata {
    parts = Set.copyOf(parts);
  }

  /** The metadata of {@code words} (config words of {@link Part}, validated before). */
  public static KafkaMetadata of(String column, Iterable<String> words) {
    Set<Part> parts = EnumSet.noneOf(Part.class);
    for (String word : words) {
      parts.add(Part.valueOf(word.trim().toUpperCase(Locale.ROOT)));
    }
    return new KafkaMetadata(column, parts);
  }

  /** True if the route writes a metadata column. */
  public boolean enabled() {
    return !parts.isEmpty();
  }

  /** True if the column has field {@code part}. */
  public boolean has(Part part) {
    return parts.contains(part);
  }

  /**
   * The column's value for {@code record}: its fields by name as plain Java values (a string, an
   * int, a long, the timestamp as epoch milliseconds or null, the key as text or null, the headers
   * as a map of name to text) that each format's converter fits to the column's type.
   */
  public Map<String, Object> valuesOf(SinkRecord record) {
    Map<String, Object> values = new HashMap<>(8);
    if (has(Part.TOPIC)) {
      values.put("topic", record.originalTopic());
    }
    if (has(Part.PARTITION)) {
      values.put("partition", record.originalKafkaPartition());
    }
    if (has(Part.OFFSET)) {
      values.put("offset", record.originalKafkaOffset());
    }
    if (has(Part.TIMESTAMP)) {
      values.put("timestamp", record.timestamp()); // null when the record has none
    }
    if (has(Part.KEY)) {
      values.put("key", MetadataText.of(record.key(), MetadataText.MAX_KEY_CHARS, record, "key"));
    }
    if (has(Part.HEADERS)) {
      values.put("headers", headers(record));
    }
    return values;
  }

  /**
   * A header name once, with the text of its last value (as Kafka's {@code lastWithName}); at most
   * {@link #MAX_HEADERS} headers are read, and a header whose name is longer than {@link
   * #MAX_HEADER_NAME_CHARS} is dropped.
   */
  private static Map<String, String> headers(SinkRecord record) {
    Map<String, String> headers = new LinkedHashMap<>();
    int read = 0;
    for (Header header : record.headers()) {
      if (++read > MAX_HEADERS) {
        break;
      }
      String name = header.key();
      if (name != null && name.length() <= MAX_HEADER_NAME_CHARS) {
        headers.remove(name); // the last one of a name decides its place too
        headers.put(
            name,
            MetadataText.of(
                header.value(), MetadataText.MAX_HEADER_CHARS, record, "header " + name));
      }
    }
    return headers;
  }

  /**
   * Refuses a row that has a field of the column's name: the metadata would silently replace it.
   *
   * @param route the route's name, for the message
   * @param row the record's row (a struct or a JSON object; anything else is not checked)
   */
  public void checkNoClash(String route, Object row) throws RecordConversionException {
    boolean clash =
        row instanceof Struct struct
            ? struct.schema().field(column) != null
            : row instanceof Map<?, ?> map && map.containsKey(column);
    if (clash) {
      throw new RecordConversionException(column, clashMessage(route, column));
    }
  }

  /** The error for a record field named like the metadata column. */
  public static String clashMessage(String route, String column) {
    return "the record has a field '"
        + column
        + "', the name of route "
        + route
        + "'s Kafka metadata column: rename the field or set route."
        + route
        + ".kafka-metadata.column";
  }
}
