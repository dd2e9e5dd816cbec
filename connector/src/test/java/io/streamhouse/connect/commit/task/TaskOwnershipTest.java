package io.streamhouse.connect.commit.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.streamhouse.connect.errors.TableUnavailableException;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.routing.TableRouter.Destination;
import io.streamhouse.connect.testing.RecordingChannel;
import io.streamhouse.connect.testing.SlowClosingFormat;
import io.streamhouse.connect.testing.TestRoutes;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The task's thread owns the task state for a {@code put} ({@link Participant#own}): the control
 * thread's commit answer waits for the next record boundary, where the task's thread hands the
 * state over ({@link Participant#yieldToWaiting}). A table's first writer opens with the state let
 * go: opening reads the table (a keyed Iceberg table's whole key index, seconds at millions of
 * keys), and the task answers commit requests meanwhile.
 */
class TaskOwnershipTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TopicPartition P1 = new TopicPartition("t", 1);
  private static final TableId OPEN = new TableId("c", List.of("ns"), "t");
  private static final TableId SLOW = new TableId("c", List.of("ns"), "slow");

  private final SlowClosingFormat format = new SlowClosingFormat();
  private final RecordingChannel channel = new RecordingChannel();
  private final Participant participant = format.participantOn(channel);

  @AfterEach
  void openTheGates() {
    format.closing.countDown();
    format.opening.countDown();
  }

  @Test
  void aCommitRequestIsAnsweredAtTheNextRecordBoundaryOfAPut() throws Exception {
    format.closing.countDown();
    participant.assigned(List.of(P0));
    participant.own();
    try {
      for (long offset = 0; offset < 10; offset++) {
        assertThat(participant.write(record(0, offset), P0, to(OPEN))).isTrue();
      }
      Thread control = new Thread(() -> participant.onStartCommit(1), "control");
      control.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> waitsForTheState(control));
      assertThat(channel.done()).as("no answer while the put owns the state").isZero();

      // The answer takes the files out at the first boundary and offers them, once closed, at a
      // later one: the put hands the state over at each boundary until the answer is sent.
      await()
          .pollInSameThread()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                participant.yieldToWaiting();
                return !control.isAlive();
              });
      assertThat(channel.done()).isEqualTo(1);
      assertThat(channel.batches())
          .singleElement()
          .satisfies(b -> assertThat(b.ranges()).isEqualTo(Map.of(P0, new OffsetRange(0, 10))));

      for (long offset = 10; offset < 15; offset++) {
        assertThat(participant.write(record(0, offset), P0, to(OPEN))).isTrue();
      }
    } finally {
      participant.disown();
    }
    participant.onStartCommit(2); // offers the undecided batch of commit 1 again, then the new one
    assertThat(channel.batches())
        .filteredOn(b -> b.commitId() == 2)
        .extracting(b -> b.ranges())
        .containsExactly(Map.of(P0, new OffsetRange(0, 10)), Map.of(P0, new OffsetRange(10, 15)));
  }

  @ParameterizedTest(name = "inside a put: {0}")
  @ValueSource(booleans = {false, true})
  void aCommitRequestIsAnsweredWhileATableOpensItsFirstWriter(boolean insidePut) throws Exception {
    format.closing.countDown();
    format.slowToOpen = SLOW;
    participant.assigned(List.of(P0, P1));
    for (long offset = 0; offset < 10; offset++) {
      assertThat(participant.write(record(0, offset), P0, to(OPEN))).isTrue();
    }
    CompletableFuture<Boolean> firstOfSlow =
        CompletableFuture.supplyAsync(() -> write(record(1, 0), P1, to(SLOW), insidePut));
    assertThat(format.openingStarted.await(30, TimeUnit.SECONDS)).isTrue();

    // The control thread's answer: it would wait until the opening ends if the writer were opened
    // owning the task state.
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

  /** {@code record} written by a put ({@code insidePut}: owning the task state) or alone. */
  private boolean write(SinkRecord record, TopicPartition tp, Destination to, boolean insidePut) {
    if (insidePut) {
      participant.own();
    }
    try {
      return participant.write(record, tp, to);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      if (insidePut) {
        participant.disown();
      }
    }
  }

  /** Whether {@code thread} is parked for the task state ({@link TaskLock}). */
  private static boolean waitsForTheState(Thread thread) {
    return thread.getState() == Thread.State.WAITING
        && Arrays.stream(thread.getStackTrace())
            .anyMatch(f -> f.getClassName().equals(TaskLock.class.getName()));
  }

  private static SinkRecord record(int partition, long offset) {
    return new SinkRecord("t", partition, null, null, null, "v" + offset, offset);
  }

  private static Destination to(TableId table) {
    return new Destination(table, TestRoutes.topicTToTableNsT());
  }
}
