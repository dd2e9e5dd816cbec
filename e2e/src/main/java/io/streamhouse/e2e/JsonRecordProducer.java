package io.streamhouse.e2e;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Produces JSON records, as plain JSON (schemaless) or wrapped in a Connect schema envelope; keys
 * are plain strings (read with {@code StringConverter}). Idempotent and acks=all; {@link #flush()}
 * re-sends what failed (for example right after a topic was created, before its leaders are known
 * everywhere) and throws if a record still cannot be written, so what it confirms is in the log.
 */
public final class JsonRecordProducer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int RESENDS = 5;
  private final KafkaProducer<String, String> producer;
  private final java.util.Queue<ProducerRecord<String, String>> failed =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  private final java.util.concurrent.atomic.AtomicReference<Exception> lastError =
      new java.util.concurrent.atomic.AtomicReference<>();

  public JsonRecordProducer(String bootstrapServers) {
    this(bootstrapServers, Map.of());
  }

  /** With more client settings, for example SASL ones. */
  public JsonRecordProducer(String bootstrapServers, Map<String, String> clientProperties) {
    Properties props = new Properties();
    props.putAll(clientProperties);
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    // One batch in flight per partition: a NOT_LEADER answer on a brand-new topic cannot turn the
    // batches behind it into OUT_OF_ORDER_SEQUENCE failures (seen to lose records otherwise).
    props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    this.producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
  }

  /** Sends a schemaless JSON value; {@code partition} null lets the key decide. */
  public Future<RecordMetadata> send(String topic, Integer partition, String key, Object value) {
    return send(new ProducerRecord<>(topic, partition, key, toJson(value)));
  }

  private Future<RecordMetadata> send(ProducerRecord<String, String> record) {
    return producer.send(
        record,
        (metadata, error) -> {
          if (error != null) {
            failed.add(record);
            lastError.set(error);
          }
        });
  }

  /** Sends a value wrapped in a Connect JSON schema envelope. */
  public Future<RecordMetadata> sendWithSchema(
      String topic,
      Integer partition,
      String key,
      ConnectJson.StructSchema schema,
      Map<String, Object> payload) {
    return send(topic, partition, key, ConnectJson.envelope(schema, payload));
  }

  /** Sends a tombstone (null value). */
  public Future<RecordMetadata> sendTombstone(String topic, Integer partition, String key) {
    return send(new ProducerRecord<>(topic, partition, key, null));
  }

  /** Sends a raw string value as-is (for malformed-input tests). */
  public Future<RecordMetadata> sendRaw(String topic, Integer partition, String key, String value) {
    return send(new ProducerRecord<>(topic, partition, key, value));
  }

  /** Sends a raw string value with a timestamp and headers (a header name may repeat). */
  public Future<RecordMetadata> sendRaw(
      String topic,
      Integer partition,
      long timestamp,
      String key,
      String value,
      List<Map.Entry<String, String>> headers) {
    List<org.apache.kafka.common.header.Header> kafkaHeaders = new java.util.ArrayList<>();
    for (Map.Entry<String, String> h : headers) {
      kafkaHeaders.add(
          new org.apache.kafka.common.header.internals.RecordHeader(
              h.getKey(),
              h.getValue() == null
                  ? null
                  : h.getValue().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
    return send(new ProducerRecord<>(topic, partition, timestamp, key, value, kafkaHeaders));
  }

  /**
   * Blocks until everything sent so far is acknowledged; re-sends failures, then fails if any
   * remain.
   */
  public void flush() {
    producer.flush();
    for (int attempt = 1; attempt <= RESENDS && !failed.isEmpty(); attempt++) {
      List<ProducerRecord<String, String>> again = new java.util.ArrayList<>(failed);
      failed.clear();
      again.forEach(this::send);
      producer.flush();
    }
    if (!failed.isEmpty()) {
      throw new IllegalStateException(
          failed.size()
              + " records could not be produced, e.g. to "
              + failed.peek().topic()
              + ": "
              + lastError.get(),
          lastError.get());
    }
  }

  private static String toJson(Object value) {
    if (value instanceof String s) {
      return s;
    }
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Cannot serialize " + value, e);
    }
  }

  @Override
  public void close() {
    producer.close();
  }
}
