package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.JsonRecordProducer;
import io.streamhouse.e2e.LocalStack;
import io.streamhouse.e2e.SampleCustomers;
import io.streamhouse.e2e.SinkProgress;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;

/**
 * The keyed topic of the upsert benchmarks: upserts and tombstones over a fixed set of keys, as
 * Connect JSON with schemas for key and value. Which key changes and which change is a delete comes
 * from {@link SampleCustomers} (20 % deletes); an upsert's value is the next {@link BenchRecords}
 * record with the change's id, the key a struct of the id. {@link PaimonWriterLoop} makes the same
 * rows from the same seed.
 */
final class UpsertChanges {
  /** The routing field's value of every upsert (the routes name their table themselves). */
  static final String TABLE_FIELD = "bench.upserts";

  /** The seed of the keys, deletes and values. */
  static final long SEED = BenchRecords.SEED;

  /**
   * @param records the records on the topic (upserts and tombstones)
   * @param liveKeys the keys the source holds after the last change: the rows a primary-key table
   *     fed by the topic must end with
   */
  record Produced(long records, int liveKeys) {}

  private UpsertChanges() {}

  /** The changes in their order, produced into a topic a part at a time. */
  static final class Stream implements AutoCloseable {
    private final SampleCustomers source;
    private final BenchRecords values = new BenchRecords(SEED);
    private final JsonRecordProducer producer;
    private final String topic;

    Stream(LocalStack stack, String topic, int keys) {
      this.source = new SampleCustomers(SEED, keys, 0.2);
      this.producer = stack.producer();
      this.topic = topic;
    }

    /** Produces the next {@code changes} changes (one record each) and waits until all are sent. */
    void produce(int changes) {
      for (int i = 0; i < changes; i++) {
        SampleCustomers.Change change = source.next();
        String key = SampleCustomers.key(change.id());
        if (change.isDelete()) {
          producer.sendTombstone(topic, null, key);
        } else {
          producer.sendRaw(topic, null, key, values.nextJson(change.id(), TABLE_FIELD));
        }
      }
      producer.flush();
    }

    /** The keys the source holds after the changes so far. */
    int liveKeys() {
      return source.state().size();
    }

    @Override
    public void close() {
      producer.close();
    }
  }

  /** Creates {@code topic} with {@code partitions} partitions and produces the changes into it. */
  static Produced produce(LocalStack stack, String topic, int partitions, int changes, int keys) {
    stack.createTopic(topic, partitions, Map.of());
    long start = System.nanoTime();
    int liveKeys;
    try (Stream stream = new Stream(stack, topic, keys)) {
      stream.produce(changes);
      liveKeys = stream.liveKeys();
      System.out.printf(
          "Upsert values: %.0f bytes of payload each (%.0f with the schema), 11 leaf columns%n",
          stream.values.meanPayloadBytes(), stream.values.meanRecordBytes());
    }
    try (Admin admin = stack.admin()) {
      long records =
          SinkProgress.endOffsets(admin, topic).values().stream().mapToLong(Long::longValue).sum();
      System.out.printf(
          "Produced %,d records in %.1f s%n", records, (System.nanoTime() - start) / 1e9);
      return new Produced(records, liveKeys);
    }
  }
}
