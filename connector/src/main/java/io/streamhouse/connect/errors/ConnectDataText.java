package io.streamhouse.connect.errors;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * Connect data (what the worker's converter made of a key, a value or a header) as text, at most a
 * given number of characters: a string as it is, anything else as JSON (structs and maps as
 * objects, arrays as arrays, bytes as Base64, dates as epoch milliseconds, decimals as numbers).
 * Rendering stops at the bound, so a huge value is never copied whole.
 */
final class ConnectDataText {
  private static final JsonFactory JSON = new JsonFactory();

  /** The text and whether it was cut at the bound. */
  record Text(String text, boolean truncated) {}

  private ConnectDataText() {}

  /** {@code data} as JSON text of at most {@code maxChars} characters; null for null. */
  static Text of(Object data, int maxChars) {
    if (data == null) {
      return new Text(null, false);
    }
    if (data instanceof String text) { // as it is, like the metadata columns' text
      return text.length() > maxChars
          ? new Text(text.substring(0, maxChars), true)
          : new Text(text, false);
    }
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
    if (depth > 64) {
      gen.writeString("(nested too deep)");
      return;
    }
    if (data == null) {
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
    } else if (data instanceof byte[] bytes) {
      gen.writeString(base64(ByteBuffer.wrap(bytes), maxChars));
    } else if (data instanceof ByteBuffer buffer) {
      gen.writeString(base64(buffer.duplicate(), maxChars));
    } else if (data instanceof Boolean b) {
      gen.writeBoolean(b);
    } else if (data instanceof BigDecimal d) {
      gen.writeNumber(d);
    } else if (data instanceof Double d) {
      gen.writeNumber(d);
    } else if (data instanceof Float f) {
      gen.writeNumber(f);
    } else if (data instanceof Number n) {
      gen.writeNumber(n.longValue());
    } else if (data instanceof java.util.Date d) {
      gen.writeNumber(d.getTime());
    } else {
      gen.writeString(data.toString());
    }
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
