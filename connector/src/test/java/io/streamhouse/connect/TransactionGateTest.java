package io.streamhouse.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.TransactionGate.Admission;
import io.streamhouse.connect.commit.task.TransactionExchange;
import io.streamhouse.connect.commit.task.TransactionTally;
import io.streamhouse.connect.config.TransactionSettings;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.TransactionCounts;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class TransactionGateTest {
  private static final String TX_TOPIC = "bank.transaction";
  private static final TopicPartition A0 = new TopicPartition("bank.public.a", 0);
  private static final TopicPartition TX0 = new TopicPartition(TX_TOPIC, 0);
  private static final TableId TABLE_A = new TableId("lake", List.of("bank"), "a");
  private static final TableId ENDS = new TableId("lake", List.of("bank"), "transactions");
  private static final Schema TX_BLOCK =
      SchemaBuilder.struct()
          .field("id", Schema.STRING_SCHEMA)
          .field("total_order", Schema.INT64_SCHEMA)
          .field("data_collection_order", Schema.INT64_SCHEMA)
          .optional()
          .build();
  private static final Schema CHANGE =
      SchemaBuilder.struct()
          .field("op", Schema.STRING_SCHEMA)
          .field("transaction", TX_BLOCK)
          .build();
  private static final Schema COLLECTION =
      SchemaBuilder.struct()
          .field("data_collection", Schema.STRING_SCHEMA)
          .field("event_count", Schema.INT64_SCHEMA)
          .build();
  private static final Schema TX_EVENT =
      SchemaBuilder.struct()
          .field("status", Schema.STRING_SCHEMA)
          .field("id", Schema.STRING_SCHEMA)
          .field("event_count", Schema.OPTIONAL_INT64_SCHEMA)
          .field("data_collections", SchemaBuilder.array(COLLECTION).optional().build())
          .build();

  private final TransactionExchange exchange = new TransactionExchange();
  private final TransactionTally tally = new TransactionTally();
  private final Map<TopicPartition, Long> sought = new HashMap<>();
  private final List<TopicPartition> paused = new ArrayList<>();
  private final List<TopicPartition> resumed = new ArrayList<>();
  private long pollWithin = -1;
  private final TransactionGate gate =
      new TransactionGate(
          new TransactionSettings(TX_TOPIC, "bank", 60_000, 100),
          exchange,
          tally,
          sought::putAll,
          new TransactionGate.Consumer() {
            @Override
            public void pause(Collection<TopicPartition> partitions) {
              paused.addAll(partitions);
            }

            @Override
            public void resume(Collection<TopicPartition> partitions) {
              resumed.addAll(partitions);
            }

            @Override
            public void pollWithin(long ms) {
              pollWithin = ms;
            }
          });

  @Test
  void anEventOfATransactionNotReleasedStopsItsPartitionThereUntilARequestReleasesIt()
      throws Exception {
    assertThat(admit(change(A0, 10, null), A0))
        .as("outside a transaction")
        .isEqualTo(Admission.WRITE);
    assertThat(admit(change(A0, 11, "t1"), A0)).isEqualTo(Admission.HOLD);
    assertThat(sought).containsEntry(A0, 11L);
    assertThat(paused).containsExactly(A0);
    assertThat(admit(change(A0, 12, null), A0)).as("behind it").isEqualTo(Admission.HOLD);
    Map<TopicPartition, Long> offsets = new HashMap<>(Map.of(A0, 13L));
    gate.holdBack(offsets);
    assertThat(offsets).containsEntry(A0, 11L);
    gate.afterPut();
    assertThat(pollWithin).as("looks for a release soon").isEqualTo(TransactionGate.LOOK_MS);

    assertThat(gate.released()).isEmpty();
    assertThat(resumed).as("nothing released yet").isEmpty();
    release("t1");
    assertThat(gate.released()).isEmpty();
    assertThat(resumed).containsExactly(A0);
    SinkRecord again = change(A0, 11, "t1");
    assertThat(admit(again, A0)).isEqualTo(Admission.WRITE);
    gate.written(again, A0, TABLE_A);
    assertThat(take(TABLE_A).seen()).isEqualTo(Map.of("t1", Map.of("bank.public.a", 1L)));
  }

  @Test
  void endEventsAreHeldReportedAndWrittenOnceReleasedAndBeginsAreNotWritten() throws Exception {
    assertThat(admit(txEvent(0, "BEGIN", "t1"), TX0)).isEqualTo(Admission.SKIP);
    assertThat(admit(txEvent(1, "END", "t1", "public.a", 2L, "public.b", 1L), TX0))
        .isEqualTo(Admission.HOLD);
    assertThat(admit(txEvent(2, "BEGIN", "t2"), TX0)).as("in order").isEqualTo(Admission.HOLD);
    assertThat(admit(txEvent(3, "END", "t2", "public.a", 1L), TX0)).isEqualTo(Admission.HOLD);
    gate.afterPut();
    assertThat(exchange.held()).containsExactly("t1", "t2");
    Map<TopicPartition, Long> offsets = new HashMap<>(Map.of(TX0, 4L));
    gate.holdBack(offsets);
    assertThat(offsets).as("the first END held is read again after a crash").containsEntry(TX0, 1L);

    release("t1");
    List<SinkRecord> released = gate.released();
    assertThat(released).extracting(SinkRecord::kafkaOffset).containsExactly(1L, 2L);
    assertThat(gate.admitReleased(released.get(0))).isEqualTo(Admission.WRITE);
    gate.written(released.get(0), TX0, ENDS);
    assertThat(gate.admitReleased(released.get(1))).isEqualTo(Admission.SKIP);
    gate.afterPut();
    assertThat(exchange.held()).containsExactly("t2");
    assertThat(take(ENDS).ends())
        .isEqualTo(Map.of("t1", Map.of("bank.public.a", 2L, "bank.public.b", 1L)));
  }

  /** A transaction committed before the task started: its events are not waited for. */
  @Test
  void eventsTheTablesHoldAlreadyAreNotWaitedFor() throws Exception {
    assertThat(gate.admit(change(A0, 3, "t0"), A0, (r, p) -> true)).isEqualTo(Admission.WRITE);
    assertThat(gate.admit(txEvent(4, "END", "t0", "public.a", 1L), TX0, (r, p) -> true))
        .isEqualTo(Admission.WRITE);
    assertThat(paused).isEmpty();
    gate.afterPut();
    assertThat(exchange.held()).isEmpty();
  }

  @Test
  void partitionsThatLeaveOrAreReadAgainAreResumedAndForgotten() throws Exception {
    admit(change(A0, 5, "t1"), A0);
    admit(txEvent(7, "END", "t1", "public.a", 1L), TX0);
    gate.reset();
    assertThat(resumed).containsExactly(A0);
    gate.afterPut();
    assertThat(exchange.held()).isEmpty();
    assertThat(admit(change(A0, 6, null), A0)).isEqualTo(Admission.WRITE);
  }

  @Test
  void malformedTransactionMetadataIsRefusedNamingTheField() {
    Struct block =
        new Struct(TX_BLOCK)
            .put("id", "x".repeat(300))
            .put("total_order", 1L)
            .put("data_collection_order", 1L);
    SinkRecord longId =
        new SinkRecord(
            A0.topic(),
            0,
            null,
            null,
            CHANGE,
            new Struct(CHANGE).put("op", "u").put("transaction", block),
            3);
    assertThatThrownBy(() -> admit(longId, A0))
        .isInstanceOf(RecordConversionException.class)
        .hasMessageContaining("1 to 256 printable characters");
    SinkRecord badStatus = txEvent(1, "COMMIT", "t1");
    assertThatThrownBy(() -> admit(badStatus, TX0)).hasMessageContaining("BEGIN or END");
    Struct noCollections =
        new Struct(TX_EVENT).put("status", "END").put("id", "t1").put("event_count", 1L);
    SinkRecord end = new SinkRecord(TX_TOPIC, 0, null, null, TX_EVENT, noCollections, 2);
    assertThatThrownBy(() -> admit(end, TX0)).hasMessageContaining("data collections");
  }

  private Admission admit(SinkRecord record, TopicPartition tp) throws RecordConversionException {
    return gate.admit(record, tp, (r, p) -> false);
  }

  private void release(String... ids) {
    exchange.release(List.of(ids));
  }

  private TransactionCounts take(TableId table) {
    return tally.take(table);
  }

  private static SinkRecord change(TopicPartition tp, long offset, String id) {
    Struct value = new Struct(CHANGE).put("op", "u");
    if (id != null) {
      value.put(
          "transaction",
          new Struct(TX_BLOCK)
              .put("id", id)
              .put("total_order", 1L)
              .put("data_collection_order", 1L));
    }
    return new SinkRecord(tp.topic(), tp.partition(), null, null, CHANGE, value, offset);
  }

  private static SinkRecord txEvent(long offset, String status, String id, Object... counts) {
    Struct value = new Struct(TX_EVENT).put("status", status).put("id", id);
    if (status.equals("END")) {
      List<Struct> collections = new ArrayList<>();
      long total = 0;
      for (int i = 0; i < counts.length; i += 2) {
        collections.add(
            new Struct(COLLECTION)
                .put("data_collection", counts[i])
                .put("event_count", counts[i + 1]));
        total += (Long) counts[i + 1];
      }
      value.put("event_count", total).put("data_collections", collections);
    }
    return new SinkRecord(TX_TOPIC, 0, null, null, TX_EVENT, value, offset);
  }
}
