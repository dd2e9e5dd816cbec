package io.streamhouse.connect.converter;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.ConverterType;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A drop-in for Kafka's {@code org.apache.kafka.connect.json.JsonConverter} that reads the same
 * bytes into the same Connect data, faster: no tree, and the schema of a schema-enabled envelope
 * recognised by its bytes (the Connect schema is cached by them, as many as {@code
 * schemas.cache.size}), so a repeated schema is never parsed again; the payload is decoded straight
 * into Connect values against the cached schema, from its bytes ({@link ByteJsonTokens}) when the
 * schema was found in place, else from Jackson's streaming parser; a struct payload becomes a
 * {@link JsonStruct}, which holds its decoded {@link JsonRow} until something reads it as a {@code
 * Struct}. A sink may read it without that {@code Struct}, through the {@link
 * io.streamhouse.connect.converter.api.DecodedStruct} it implements.
 *
 * <p>Every record it does not decode with certainty goes to a {@code JsonConverter} configured the
 * same way, whose answer (a value or a {@link DataException}) is the answer: the first record of
 * each schema (which also gives the schema to cache), envelopes in another field order or with
 * other fields, values of another JSON type than their schema's, integers beyond a long, nesting
 * beyond {@link PayloadDecoder#MAX_DEPTH}, and every malformed input. Serialization ({@link
 * #fromConnectData}) is {@code JsonConverter}'s. Configuration keys are {@code JsonConverter}'s.
 *
 * <p>One instance serves one task thread, as Connect uses converters; it is safe, not fast, to
 * share one.
 */
public final class FastJsonConverter implements Converter, HeaderConverter {
  private static final byte[] SCHEMA_FIRST = "{\"schema\":".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] PAYLOAD_NEXT = ",\"payload\":".getBytes(StandardCharsets.US_ASCII);
  private static final String REPLACE_NULL_WITH_DEFAULT = "replace.null.with.default";
  private static final Logger LOG = LoggerFactory.getLogger(FastJsonConverter.class);

  /**
   * Strict JSON as Connect's JsonDeserializer reads it (it allows leading zeros in numbers). Its
   * parsers' buffers come from this converter's own pool: Jackson's default keeps them per thread,
   * and finding that thread-local is a lookup per record on a worker's task thread.
   */
  private final JsonFactory json =
      JsonFactory.builder()
          .enable(JsonReadFeature.ALLOW_LEADING_ZEROS_FOR_NUMBERS)
          .recyclerPool(JsonRecyclerPools.newConcurrentDequePool())
          .build();

  private final JsonConverter delegate = new JsonConverter();
  private boolean schemasEnabled = true;
  private SchemaSliceCache schemas = new SchemaSliceCache(1000);
  private PayloadDecoder decoder = new PayloadDecoder(true, true);
  private final ConverterMetrics metrics = new ConverterMetrics();

  /** The version of this module's jar (its manifest), as Connect shows for a plugin. */
  @Override
  public String version() {
    String version = FastJsonConverter.class.getPackage().getImplementationVersion();
    return version != null ? version : "unknown";
  }

  @Override
  public ConfigDef config() {
    return delegate.config();
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    delegate.configure(configs, isKey);
    Map<String, Object> typed = new HashMap<>(configs);
    typed.put(
        "converter.type", isKey ? ConverterType.KEY.getName() : ConverterType.VALUE.getName());
    AbstractConfig config = new AbstractConfig(delegate.config(), typed, false);
    schemasEnabled = config.getBoolean("schemas.enable");
    schemas = new SchemaSliceCache(config.getInt("schemas.cache.size"));
    // Kafka before 3.8 has no such key and always replaces a null with the default.
    boolean replaceNull =
        !delegate.config().names().contains(REPLACE_NULL_WITH_DEFAULT)
            || config.getBoolean(REPLACE_NULL_WITH_DEFAULT);
    decoder = new PayloadDecoder(replaceNull, true);
    metrics.register(isKey ? "key" : "value");
  }

  /**
   * As a {@code header.converter}: headers are {@code JsonConverter}'s, configured with {@code
   * configs}. The fast path reads record values (and keys); a header is a small value read once, so
   * there is nothing for it to save there, and the header's bytes mean what they mean to {@code
   * JsonConverter}.
   */
  @Override
  public void configure(Map<String, ?> configs) {
    delegate.configure(configs);
    metrics.register("header");
  }

  @Override
  public SchemaAndValue toConnectHeader(String topic, String headerKey, byte[] value) {
    return delegate.toConnectHeader(topic, headerKey, value);
  }

  @Override
  public byte[] fromConnectHeader(String topic, String headerKey, Schema schema, Object value) {
    return delegate.fromConnectHeader(topic, headerKey, schema, value);
  }

  @Override
  public byte[] fromConnectData(String topic, Schema schema, Object value) {
    return delegate.fromConnectData(topic, schema, value);
  }

  @Override
  public SchemaAndValue toConnectData(String topic, byte[] value) {
    if (value == null) {
      return SchemaAndValue.NULL;
    }
    try {
      SchemaAndValue decoded = schemasEnabled ? envelope(topic, value) : schemaless(value);
      if (decoded != null) {
        return decoded;
      }
    } catch (Answered e) {
      throw e.answer;
    } catch (IOException | RuntimeException e) {
      // NotHandled, or anything else: JsonConverter answers for what the fast path does not decode.
    }
    return delegate(topic, value);
  }

  @Override
  public void close() {
    metrics.unregister();
    delegate.close();
  }

  /** Records read by JsonConverter rather than here. */
  long handedOver() {
    return metrics.getFallbacks();
  }

  /** The JMX name of its counts ({@link ConverterMetrics}), or null. */
  javax.management.ObjectName metricsName() {
    return metrics.name();
  }

  /** Cached schemas, for tests. */
  int cachedSchemas() {
    return schemas.size();
  }

  private SchemaAndValue schemaless(byte[] value) throws IOException {
    try (JsonParser p = json.createParser(value)) {
      if (p.nextToken() == null) {
        return null;
      }
      Object decoded = decoder.read(p, null);
      return p.nextToken() == null ? new SchemaAndValue(null, decoded) : null;
    }
  }

  /**
   * {@code {"schema":S,"payload":P}}: when S is byte for byte the schema of the last record (the
   * usual case: JsonConverter writes this form), only P is parsed; otherwise the envelope is parsed
   * and S skipped token by token to find its bytes.
   */
  private SchemaAndValue envelope(String topic, byte[] value) throws IOException {
    SchemaSliceCache.Slice last =
        startsWith(value, 0, SCHEMA_FIRST) ? schemas.lastAt(value, SCHEMA_FIRST.length) : null;
    if (last != null) {
      int schemaEnd = SCHEMA_FIRST.length + last.length();
      int payloadStart = schemaEnd + PAYLOAD_NEXT.length;
      int close = lastNonWhitespace(value);
      if (startsWith(value, schemaEnd, PAYLOAD_NEXT)
          && close > payloadStart
          && value[close] == '}') {
        return payloadOnly(value, payloadStart, close, last.schema);
      }
    }
    return parsedEnvelope(topic, value);
  }

  /**
   * The payload in {@code value[from, to)}: one JSON value and nothing else, read from its bytes
   * ({@link ByteJsonTokens}) without a parser.
   */
  private SchemaAndValue payloadOnly(byte[] value, int from, int to, Schema schema)
      throws IOException {
    ByteJsonTokens p = new ByteJsonTokens(value, from, to);
    if (p.next() == null) {
      return null;
    }
    Object decoded = decoder.read(p, schema);
    return p.next() == null ? new SchemaAndValue(schema, connectValue(decoded)) : null;
  }

  private SchemaAndValue parsedEnvelope(String topic, byte[] value) throws IOException {
    try (JsonParser p = json.createParser(value)) {
      if (p.nextToken() != JsonToken.START_OBJECT
          || p.nextToken() != JsonToken.FIELD_NAME
          || !"schema".equals(p.currentName())
          || p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      int schemaFrom = (int) p.currentTokenLocation().getByteOffset();
      p.skipChildren();
      int schemaTo = (int) p.currentLocation().getByteOffset();
      if (p.nextToken() != JsonToken.FIELD_NAME || !"payload".equals(p.currentName())) {
        return null;
      }
      p.nextToken();
      Schema schema = schemas.get(value, schemaFrom, schemaTo);
      if (schema == null) {
        // The first record of this schema: JsonConverter reads it, and its schema is kept if the
        // envelope holds nothing but this schema and a payload (a second "schema" would be the one
        // JsonConverter reads).
        boolean plainEnvelope = endsAfterPayload(p);
        SchemaAndValue first;
        try {
          first = delegate(topic, value);
        } catch (DataException e) {
          throw new Answered(e);
        }
        if (plainEnvelope && first.schema() != null) {
          schemas.put(value, schemaFrom, schemaTo, first.schema());
        }
        return first;
      }
      Object decoded = decoder.read(p, schema, value, 0);
      if (p.nextToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
        return null;
      }
      return new SchemaAndValue(schema, connectValue(decoded));
    }
  }

  /**
   * A decoded payload as Connect data: a struct stays a row inside its {@link JsonStruct} until
   * something reads it; anything else is made Connect data now.
   */
  private static Object connectValue(Object decoded) {
    return decoded instanceof JsonRow row ? new JsonStruct(row) : JsonRow.toConnect(decoded);
  }

  /** Whether the payload, the parser's current token, ends the envelope and the input. */
  private static boolean endsAfterPayload(JsonParser p) {
    try {
      p.skipChildren();
      return p.nextToken() == JsonToken.END_OBJECT && p.nextToken() == null;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private SchemaAndValue delegate(String topic, byte[] value) {
    metrics.fellBack();
    LOG.debug("A record of topic {} is read by JsonConverter", topic);
    try {
      return delegate.toConnectData(topic, value);
    } catch (DataException e) {
      throw e;
    } catch (RuntimeException | StackOverflowError e) {
      throw new DataException("Converting byte[] to Kafka Connect data failed: " + e, e);
    }
  }

  /** JsonConverter's refusal of a record the fast path already handed to it: not to ask twice. */
  private static final class Answered extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final DataException answer;

    Answered(DataException answer) {
      super(null, null, false, false);
      this.answer = answer;
    }
  }

  private static boolean startsWith(byte[] value, int at, byte[] prefix) {
    return at + prefix.length <= value.length
        && Arrays.equals(value, at, at + prefix.length, prefix, 0, prefix.length);
  }

  private static int lastNonWhitespace(byte[] value) {
    int i = value.length - 1;
    while (i >= 0
        && (value[i] == ' ' || value[i] == '\n' || value[i] == '\r' || value[i] == '\t')) {
      i--;
    }
    return i;
  }
}
