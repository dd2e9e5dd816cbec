package io.streamhouse.connect.commit.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.errors.TableUnavailableException;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.routing.TableRouter.Destination;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.testing.RecordingChannel;
import io.streamhouse.connect.testing.SlowClosingFormat;
import io.streamhouse.connect.testing.TestRoutes;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A table's first writer opens without the task's lock: opening reads the table (a keyed Iceberg
 * table's whole key index, seconds at millions of keys), and the task answers commit requests
 * meanwhile.
 */
class WriterOpeningTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TopicPartition P1 = new TopicPartition("t", 1);
  private static final TableId OPEN = new TableId("c", List.of("ns"), "t");
  private static final TableId SLOW = new TableId("c", List.of("ns"), "slow");

  private final SlowClosingFormat format = new SlowClosingFormat();
  private final RecordingChannel channel = new RecordingChannel();
  private final Participant participant =
      new Participant(
          "conn",
          0,
          Map.of("c", format),
          channel,
          new FileBudget(10, 64L << 20),
          FaultInjection.parse(""),
          0,
          30_000,
          2);

  @AfterEach
  void openTheGates() {
    format.closing.countDown();
    format.opening.countDown();
  }

  @Test
  void aCommitRequestIsAnsweredWhileATableOpensItsFirstWriter() throws Exception {
    format.closing.countDown();
    format.slowToOpen = SLOW;
    participant.assigned(List.of(P0, P1));
    for (long offset = 0; offset < 10; offset++) {
      assertThat(participant.write(record(0, offset), P0, to(OPEN))).isTrue();
    }
    CompletableFuture<Boolean> firstOfSlow =
        CompletableFuture.supplyAsync(() -> write(record(1, 0), P1, to(SLOW)));
    assertThat(format.openingStarted.await(30, TimeUnit.SECONDS)).isTrue();

    // The control thread's answer: it would wait for the task's lock until the opening ends if
    // the writer were opened under it.
    CompletableFuture.runAsync(() -> participant.onStartCommit(1)).get(30, TimeUnit.SECONDS);
    assertThat(channel.done()).isEqualTo(1);
    assertThat(channel.batches())
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.table()).isEqualTo(OPEN);
              assertThat(b.ranges()).isEqualTo(Map.of(P0, new OffsetRange(0, 10)));
            });
    assertThat(firstOfSlow).isNotDone();

    format.opening.countDown();
    assertThat(firstOfSlow.get(30, TimeUnit.SECONDS)).isTrue();
    participant.onStartCommit(2);
    assertThat(channel.batches())
        .filteredOn(b -> b.commitId() == 2 && b.table().equals(SLOW))
        .singleElement()
        .satisfies(b -> assertThat(b.ranges()).isEqualTo(Map.of(P1, new OffsetRange(0, 1))));
    assertThat(format.writersOpened).hasValue(2);
  }

  @Test
  void aMissingTableFailsTheRecordAndIsNotLookedUpAgainForEveryRecord() {
    format.closing.countDown();
    format.missing = SLOW;
    participant.assigned(List.of(P1));

    for (long offset = 0; offset < 3; offset++) {
      SinkRecord record = record(1, offset);
      assertThatThrownBy(() -> participant.write(record, P1, to(SLOW)))
          .isInstanceOf(TableUnavailableException.class)
          .hasMessageContaining("ns.slow");
    }
    assertThat(format.writersOpened).as("looked up once, then known missing").hasValue(1);
    assertThat(participant.hasWriters()).isFalse();
  }

  private boolean write(SinkRecord record, TopicPartition tp, Destination to) {
    try {
      return participant.write(record, tp, to);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static SinkRecord record(int partition, long offset) {
    return new SinkRecord("t", partition, null, null, null, "v" + offset, offset);
  }

  private static Destination to(TableId table) {
    return new Destination(table, TestRoutes.topicTToTableNsT());
  }
}
