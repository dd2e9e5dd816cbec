package io.streamhouse.connect.errors;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Collection;
import java.util.Date;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * Connect data (what the worker's converter made of a key, a value or a header) as text of at most
 * a given number of characters, the one rendering of the dead-letter rows and the Kafka metadata
 * columns: a string as it is; a number or boolean in its decimal text; bytes in Base64; a date or
 * timestamp as an ISO-8601 instant; a struct, map or array as JSON (struct fields in schema order,
 * nested bytes Base64, nested dates ISO-8601 strings, nesting below 64 levels). Rendering stops at
 * the bound, so a huge value is never copied whole; the result says whether it was cut.
 */
public final class ConnectDataText {
  private static final JsonFactory JSON = new JsonFactory();
  private static final int MAX_DEPTH = 64;

  /** The text (null for null data) and whether it was cut at the bound. */
  public record Text(String text, boolean truncated) {}

  private ConnectDataText() {}

  /** {@code data} as text of at most {@code maxChars} characters. */
  public static Text of(Object data, int maxChars) {
    if (data == null) {
      return new Text(null, false);
    }
    if (data instanceof byte[] || data instanceof ByteBuffer) {
      ByteBuffer bytes = buffer(data);
      boolean fits = (bytes.remaining() + 2L) / 3 * 4 <= maxChars;
      String text = base64(bytes, maxChars);
      return fits ? new Text(text, false) : new Text(text.substring(0, maxChars), true);
    }
    if (data instanceof Struct || data instanceof Map || data instanceof Collection) {
      return json(data, maxChars);
    }
    String text = scalar(data);
    return text.length() > maxChars
        ? new Text(text.substring(0, maxChars), true)
        : new Text(text, false);
  }

  private static String scalar(Object data) {
    if (data instanceof BigDecimal d) {
      return d.toPlainString();
    }
    if (data instanceof Date d) {
      return d.toInstant().toString();
    }
    return data.toString();
  }

  private static Text json(Object data, int maxChars) {
    BoundedWriter out = new BoundedWriter(maxChars);
    try (JsonGenerator gen = JSON.createGenerator(out)) {
      write(gen, data, 0, maxChars);
    } catch (Full full) {
      return new Text(out.text(), true);
    } catch (IOException e) {
      return new Text(String.valueOf(data), false); // not reached: the writer throws only Full
    }
    return new Text(out.text(), false);
  }

  private static void write(JsonGenerator gen, Object data, int depth, int maxChars)
      throws IOException {
    if (depth > MAX_DEPTH) {
      gen.writeString("(nested too deep)");
    } else if (data == null) {
      gen.writeNull();
    } else if (data instanceof Struct struct) {
      gen.writeStartObject();
      for (Field f : struct.schema().fields()) {
        gen.writeFieldName(f.name());
        write(gen, struct.get(f), depth + 1, maxChars);
      }
      gen.writeEndObject();
    } else if (data instanceof Map<?, ?> map) {
      gen.writeStartObject();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        gen.writeFieldName(String.valueOf(e.getKey()));
        write(gen, e.getValue(), depth + 1, maxChars);
      }
      gen.writeEndObject();
    } else if (data instanceof Collection<?> list) {
      gen.writeStartArray();
      for (Object o : list) {
        write(gen, o, depth + 1, maxChars);
      }
      gen.writeEndArray();
    } else if (data instanceof byte[] || data instanceof ByteBuffer) {
      gen.writeString(base64(buffer(data), maxChars));
    } else if (data instanceof Boolean b) {
      gen.writeBoolean(b);
    } else if (data instanceof BigDecimal d) {
      gen.writeNumber(d);
    } else if (data instanceof BigInteger i) {
      gen.writeNumber(i);
    } else if (data instanceof Double || data instanceof Float) {
      gen.writeNumber(((Number) data).doubleValue());
    } else if (data instanceof Number n) {
      gen.writeNumber(n.longValue());
    } else {
      gen.writeString(scalar(data));
    }
  }

  private static ByteBuffer buffer(Object data) {
    return data instanceof byte[] b ? ByteBuffer.wrap(b) : ((ByteBuffer) data).duplicate();
  }

  /** Base64 of at most the bytes that fit {@code maxChars} characters (and one group more). */
  private static String base64(ByteBuffer bytes, int maxChars) {
    int take = (int) Math.min(bytes.remaining(), (maxChars / 4 + 1) * 3L);
    byte[] prefix = new byte[take];
    bytes.get(prefix);
    return Base64.getEncoder().encodeToString(prefix);
  }

  /** Thrown when the bound is reached. */
  private static final class Full extends IOException {
    private static final long serialVersionUID = 1L;

    Full() {
      super("full", null);
    }
  }

  /** A writer that keeps at most {@code max} characters, then throws {@link Full}. */
  private static final class BoundedWriter extends Writer {
    private final StringBuilder text = new StringBuilder();
    private final int max;

    BoundedWriter(int max) {
      this.max = max;
    }

    @Override
    public void write(char[] buf, int off, int len) throws IOException {
      int room = max - text.length();
      text.append(buf, off, Math.min(room, len));
      if (len > room) {
        throw new Full();
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}

    String text() {
      return text.toString();
    }
  }
}
