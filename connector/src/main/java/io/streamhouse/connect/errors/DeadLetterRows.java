package io.streamhouse.connect.errors;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The row of the dead-letter table for a record that cannot be written, as a record the task writes
 * like any other: same original topic, partition and offset (so the table's watermarks cover it,
 * and a replay skips it once committed), and a value of {@link #SCHEMA}. Key, value and headers are
 * the Connect data the worker's converters made, as JSON text, each cut at its bound ({@code
 * truncated} says when); docs/dead-letter-table.md describes the columns.
 */
public final class DeadLetterRows {
  public static final int MAX_KEY_CHARS = 16 * 1024;
  public static final int MAX_VALUE_CHARS = 256 * 1024;
  public static final int MAX_HEADERS_CHARS = 16 * 1024;
  public static final int MAX_MESSAGE_CHARS = 4 * 1024;

  private static final Schema TIMESTAMP = Timestamp.builder().optional().build();

  public static final Schema SCHEMA =
      SchemaBuilder.struct()
          .name("io.streamhouse.connect.DeadLetter")
          .field("topic", Schema.STRING_SCHEMA)
          .field("partition", Schema.INT32_SCHEMA)
          .field("offset", Schema.INT64_SCHEMA)
          .field("timestamp", TIMESTAMP)
          .field("key", Schema.OPTIONAL_STRING_SCHEMA)
          .field("value", Schema.OPTIONAL_STRING_SCHEMA)
          .field("headers", Schema.OPTIONAL_STRING_SCHEMA)
          .field("truncated", Schema.BOOLEAN_SCHEMA)
          .field("connector", Schema.STRING_SCHEMA)
          .field("task", Schema.INT32_SCHEMA)
          .field("route", Schema.OPTIONAL_STRING_SCHEMA)
          .field("target_table", Schema.OPTIONAL_STRING_SCHEMA)
          .field("stage", Schema.STRING_SCHEMA)
          .field("error_field", Schema.OPTIONAL_STRING_SCHEMA)
          .field("error_class", Schema.STRING_SCHEMA)
          .field("error_message", Schema.OPTIONAL_STRING_SCHEMA)
          .field("failed_at", Timestamp.SCHEMA)
          .build();

  private final String connector;
  private final int taskId;
  private final LongSupplier millis;

  public DeadLetterRows(String connector, int taskId, LongSupplier millis) {
    this.connector = connector;
    this.taskId = taskId;
    this.millis = millis;
  }

  /**
   * The dead-letter row of {@code bad}, which failed at {@code stage} on its way to {@code
   * targetTable} by {@code route} (either null when no route took it).
   */
  public SinkRecord row(
      SinkRecord bad,
      String route,
      String targetTable,
      DeadLetterStage stage,
      RecordConversionException error) {
    ConnectDataText.Text key = ConnectDataText.of(bad.key(), MAX_KEY_CHARS);
    ConnectDataText.Text value = ConnectDataText.of(bad.value(), MAX_VALUE_CHARS);
    ConnectDataText.Text headers = ConnectDataText.of(headers(bad), MAX_HEADERS_CHARS);
    String message = error.getMessage();
    if (message != null && message.length() > MAX_MESSAGE_CHARS) {
      message = message.substring(0, MAX_MESSAGE_CHARS);
    }
    Struct row =
        new Struct(SCHEMA)
            .put("topic", bad.originalTopic())
            .put("partition", bad.originalKafkaPartition())
            .put("offset", bad.originalKafkaOffset())
            .put("timestamp", bad.timestamp() == null ? null : new java.util.Date(bad.timestamp()))
            .put("key", key.text())
            .put("value", value.text())
            .put("headers", headers.text())
            .put("truncated", key.truncated() || value.truncated() || headers.truncated())
            .put("connector", connector)
            .put("task", taskId)
            .put("route", route)
            .put("target_table", targetTable)
            .put("stage", stage.columnValue())
            .put("error_field", error.field())
            .put("error_class", error.getClass().getName())
            .put("error_message", message)
            .put("failed_at", new java.util.Date(millis.getAsLong()));
    return bad.newRecord(
        bad.topic(),
        bad.kafkaPartition(),
        null,
        null,
        SCHEMA,
        row,
        bad.timestamp(),
        new ConnectHeaders());
  }

  /** The record's headers as a list of {key, value}: a key may repeat. */
  private static List<Map<String, Object>> headers(SinkRecord bad) {
    if (bad.headers() == null || bad.headers().isEmpty()) {
      return null;
    }
    List<Map<String, Object>> list = new ArrayList<>();
    int n = 0;
    for (Header h : bad.headers()) {
      if (++n > 1_000) {
        break; // the text bound cuts long before
      }
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("key", h.key());
      entry.put("value", h.value());
      list.add(entry);
    }
    return list;
  }
}
