package io.streamhouse.connect.convert;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka key or header value, as the worker's converter gave it, as bounded text: a string as it
 * is; a number or boolean in its decimal text; bytes in Base64; a date or timestamp as an ISO-8601
 * instant; a struct, map or array as JSON (struct fields in schema order, nested bytes in Base64).
 * Text longer than the bound becomes null (never a truncated value that could pass for a real one),
 * and is counted and logged.
 */
public final class MetadataText {
  /** Bound of a key's text, in characters. */
  public static final int MAX_KEY_CHARS = 16_384;

  /** Bound of a header value's text, in characters. */
  public static final int MAX_HEADER_CHARS = 4_096;

  private static final Logger LOG = LoggerFactory.getLogger(MetadataText.class);
  private static final JsonFactory JSON = new JsonFactory();
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
    if (value == null) {
      return null;
    }
    String text;
    if (value instanceof String s) {
      text = s;
    } else if (value instanceof byte[] || value instanceof ByteBuffer) {
      byte[] bytes = bytes(value);
      text =
          (bytes.length + 2L) / 3 * 4 > maxChars ? null : Base64.getEncoder().encodeToString(bytes);
    } else if (value instanceof Struct || value instanceof Map || value instanceof List) {
      text = json(value, maxChars);
    } else {
      text = scalar(value);
    }
    return text == null || text.length() > maxChars ? null : text;
  }

  private static String scalar(Object value) {
    if (value instanceof BigDecimal d) {
      return d.toPlainString();
    }
    if (value instanceof Date d) {
      return d.toInstant().toString();
    }
    return value.toString();
  }

  private static byte[] bytes(Object value) {
    if (value instanceof byte[] b) {
      return b;
    }
    ByteBuffer buffer = ((ByteBuffer) value).duplicate();
    byte[] b = new byte[buffer.remaining()];
    buffer.get(b);
    return b;
  }

  private static String json(Object value, int maxChars) {
    BoundedWriter out = new BoundedWriter(maxChars);
    try (JsonGenerator json = JSON.createGenerator(out)) {
      write(json, value);
    } catch (IOException e) {
      return null; // past the bound
    }
    return out.toString();
  }

  private static void write(JsonGenerator json, Object value) throws IOException {
    if (value == null) {
      json.writeNull();
    } else if (value instanceof Struct struct) {
      json.writeStartObject();
      for (Field field : struct.schema().fields()) {
        json.writeFieldName(field.name());
        write(json, struct.get(field));
      }
      json.writeEndObject();
    } else if (value instanceof Map<?, ?> map) {
      json.writeStartObject();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        json.writeFieldName(String.valueOf(e.getKey()));
        write(json, e.getValue());
      }
      json.writeEndObject();
    } else if (value instanceof List<?> list) {
      json.writeStartArray();
      for (Object element : list) {
        write(json, element);
      }
      json.writeEndArray();
    } else if (value instanceof Boolean b) {
      json.writeBoolean(b);
    } else if (value instanceof BigDecimal d) {
      json.writeNumber(d);
    } else if (value instanceof BigInteger i) {
      json.writeNumber(i);
    } else if (value instanceof Double || value instanceof Float) {
      json.writeNumber(((Number) value).doubleValue());
    } else if (value instanceof Number n) {
      json.writeNumber(n.longValue());
    } else if (value instanceof byte[] || value instanceof ByteBuffer) {
      json.writeString(Base64.getEncoder().encodeToString(bytes(value)));
    } else {
      json.writeString(scalar(value));
    }
  }

  /** A string writer that fails once it would hold more than its bound. */
  private static final class BoundedWriter extends Writer {
    private final StringBuilder text = new StringBuilder();
    private final int maxChars;

    BoundedWriter(int maxChars) {
      this.maxChars = maxChars;
    }

    @Override
    public void write(char[] chars, int offset, int length) throws IOException {
      if (text.length() + length > maxChars) {
        throw new IOException("longer than " + maxChars + " characters");
      }
      text.append(chars, offset, length);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}

    @Override
    public String toString() {
      return text.toString();
    }
  }
}
