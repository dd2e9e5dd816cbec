package io.streamhouse.e2e;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * are plain strings (read with {@code StringConverter}). Idempotent and acks=all, so what {@link
 * #flush()} confirms is in the log exactly once.
 */
public final class JsonRecordProducer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final KafkaProducer<String, String> producer;

  public JsonRecordProducer(String bootstrapServers) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    this.producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
  }

  /** Sends a schemaless JSON value; {@code partition} null lets the key decide. */
  public Future<RecordMetadata> send(String topic, Integer partition, String key, Object value) {
    return producer.send(new ProducerRecord<>(topic, partition, key, toJson(value)));
  }

  /** Sends a value wrapped in a Connect JSON schema envelope. */
  public Future<RecordMetadata> sendWithSchema(String topic, Integer partition, String key,
      ConnectJson.StructSchema schema, Map<String, Object> payload) {
    return send(topic, partition, key, ConnectJson.envelope(schema, payload));
  }

  /** Sends a tombstone (null value). */
  public Future<RecordMetadata> sendTombstone(String topic, Integer partition, String key) {
    return producer.send(new ProducerRecord<>(topic, partition, key, null));
  }

  /** Sends a raw string value as-is (for malformed-input tests). */
  public Future<RecordMetadata> sendRaw(String topic, Integer partition, String key, String value) {
    return producer.send(new ProducerRecord<>(topic, partition, key, value));
  }

  /** Blocks until everything sent so far is acknowledged, and fails if any send failed. */
  public void flush() {
    producer.flush();
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
