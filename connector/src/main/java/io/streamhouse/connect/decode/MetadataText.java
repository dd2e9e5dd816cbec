package io.streamhouse.connect.decode;

import io.streamhouse.connect.errors.ConnectDataText;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka key or header value, as the worker's converter gave it, as bounded text in the rendering
 * of {@link ConnectDataText} (a string as it is, bytes Base64, dates ISO-8601, structs, maps and
 * arrays JSON). Text longer than the bound becomes null (never a truncated value that could pass
 * for a real one), and is counted and logged.
 */
public final class MetadataText {
  /** Bound of a key's text, in characters. */
  public static final int MAX_KEY_CHARS = 16_384;

  /** Bound of a header value's text, in characters. */
  public static final int MAX_HEADER_CHARS = 4_096;

  private static final Logger LOG = LoggerFactory.getLogger(MetadataText.class);
  private static final AtomicLong OVERSIZED = new AtomicLong();

  private MetadataText() {}

  /**
   * The text of {@code value}, or null if it is null or longer than {@code maxChars} characters.
   *
   * @param what what {@code value} is ("key", "header h"), for the log
   */
  public static String of(Object value, int maxChars, SinkRecord record, String what) {
    String text = of(value, maxChars);
    if (text == null && value != null) {
      long count = OVERSIZED.incrementAndGet();
      if (count == 1 || count % 10_000 == 0) {
        LOG.warn(
            "The {} of the record at {}-{} offset {} is longer than {} characters as text: its "
                + "Kafka metadata field is null ({} such values so far)",
            what,
            record.originalTopic(),
            record.originalKafkaPartition(),
            record.originalKafkaOffset(),
            maxChars,
            count);
      }
    }
    return text;
  }

  /** The text of {@code value}, or null if it is null or longer than {@code maxChars}. */
  static String of(Object value, int maxChars) {
    ConnectDataText.Text text = ConnectDataText.of(value, maxChars);
    return text.truncated() ? null : text.text();
  }
}
