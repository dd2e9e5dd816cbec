package io.streamhouse.connect.commit.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.routing.TableRouter.Destination;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.testing.MovableClock;
import io.streamhouse.connect.testing.RecordingChannel;
import io.streamhouse.connect.testing.SlowClosingFormat;
import io.streamhouse.connect.testing.TestRoutes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/**
 * The task's control loop answers only the last of the commit requests that came together, and only
 * those of the latest coordinator while it is heard.
 */
class TaskControlLoopTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final Destination TO =
      new Destination(new TableId("c", List.of("ns"), "t"), TestRoutes.topicTToTableNsT());

  private final MovableClock clock = new MovableClock();
  private final RecordingChannel channel = new RecordingChannel();

  @Test
  void ofTheCommitRequestsThatArrivedTogetherOnlyTheLastIsAnswered() {
    TaskControlLoop loop = loop();

    loop.dispatch(
        List.of(
            new ControlEvent.StartCommit("conn", 1, 5),
            new ControlEvent.StartCommit("conn", 1, 5),
            new ControlEvent.StartCommit("conn", 2, 5),
            new ControlEvent.StartCommit("conn", 2, 5)));

    assertThat(answered()).containsExactly(2L);
  }

  @Test
  void anEarlierCoordinatorIsAnsweredOnlyOnceTheLatestFellSilent() {
    TaskControlLoop loop = loop();
    loop.dispatch(List.of(new ControlEvent.StartCommit("conn", 10, 5)));
    // A later coordinator starts (task 0 moved): from now on only its requests are answered, even
    // when the zombie's come after them.
    loop.dispatch(
        List.of(
            new ControlEvent.StartCommit("conn", 20, 7),
            new ControlEvent.StartCommit("conn", 21, 5)));
    clock.advance(20_000);
    loop.dispatch(List.of(new ControlEvent.StartCommit("conn", 22, 5)));
    loop.dispatch(List.of(new ControlEvent.StartCommit("conn", 23, 7)));
    assertThat(answered()).containsExactly(10L, 20L, 23L);

    // The later one falls silent for the stand-down time: the earlier one is answered again.
    clock.advance(30_000);
    loop.dispatch(List.of(new ControlEvent.StartCommit("conn", 24, 5)));
    assertThat(answered()).containsExactly(10L, 20L, 23L, 24L);
  }

  @Test
  void aWakeUpWhileRunningReadsTheTopicAtOnceAndOnlyAStopEndsTheLoop() {
    WakingChannel waking = new WakingChannel();
    TaskControlLoop loop = loop(waking);
    Thread thread = new Thread(loop, "control-loop-test");
    thread.start();
    await().until(() -> !waking.timeouts.isEmpty());

    // Partitions assigned (Participant.hold): the poll in progress ends, the next takes what has
    // arrived at once, and the loop goes on.
    waking.wakeup();
    await().until(() -> waking.timeouts.contains(Duration.ZERO));
    int polls = waking.timeouts.size();
    await().until(() -> waking.timeouts.size() > polls);
    assertThat(thread.isAlive()).isTrue();

    loop.stop();
    waking.wakeup();
    await().until(() -> !thread.isAlive());
    assertThat(loop.failure()).isNull();
  }

  /**
   * A task slower than every round (SlowTaskE2E: each answer takes three times commit.timeout.ms):
   * while it answered late, the coordinator committed that round without it and started others. The
   * poll after the late answer returns what the consumer fetched in the answer's first moments, a
   * request of a round already committed; the coordinator takes batches only for the round in
   * progress, so the undecided batch offered again in answer to that stale request would be
   * dropped, and so on in every round after. The task reads the topic up to its end first and
   * answers the round in progress, whose request the batch goes into.
   */
  @Test
  void afterALateAnswerTheRoundInProgressIsAnsweredNotOneTheConsumerFetchedDuringIt()
      throws Exception {
    ConsumerLikeChannel topic = new ConsumerLikeChannel();
    SlowClosingFormat format = new SlowClosingFormat();
    format.closing.countDown();
    format.closeMillis = 200; // a flush longer than the timeout below: answers with files are late
    Participant slow = participant(topic, format, 50);
    TaskControlLoop loop = loop(topic, slow);
    write(slow, 0, 10);

    topic.append(new ControlEvent.StartCommit("conn", 1, 5));
    loop.step(0);
    assertThat(slow.lateAnswers()).as("round 1 was answered late").isEqualTo(1);
    assertThat(topic.offered(1)).as("the batch of round 1, too late for it").hasSize(1);

    // Meanwhile the coordinator committed round 2 without the task and started round 3; the fetch
    // in flight during the answer got only the request of round 2.
    topic.append(new ControlEvent.StartCommit("conn", 2, 5));
    topic.append(new ControlEvent.StartCommit("conn", 3, 5));
    topic.fetched(1);
    loop.step(0);

    assertThat(topic.answered()).as("rounds answered").containsExactly(1L, 3L);
    assertThat(topic.offered(3))
        .as("the undecided batch, offered again in the round in progress")
        .containsExactlyElementsOf(topic.offered(1));
  }

  /**
   * After an answer on time the poll's last request is answered as it is: the topic's end is not
   * looked up on every round.
   */
  @Test
  void afterAnAnswerOnTimeTheEndOfTheTopicIsNotLookedUp() throws Exception {
    ConsumerLikeChannel topic = new ConsumerLikeChannel();
    SlowClosingFormat format = new SlowClosingFormat();
    format.closing.countDown();
    Participant quick = participant(topic, format, 30_000);
    TaskControlLoop loop = loop(topic, quick);
    write(quick, 0, 10);

    topic.append(new ControlEvent.StartCommit("conn", 1, 5));
    loop.step(0);
    topic.append(new ControlEvent.StartCommit("conn", 2, 5));
    topic.append(new ControlEvent.StartCommit("conn", 3, 5));
    topic.fetched(1);
    loop.step(0);

    assertThat(quick.lateAnswers()).isZero();
    assertThat(topic.answered()).containsExactly(1L, 2L);
    assertThat(topic.endsLookedUp).isZero();
  }

  /**
   * The control topic as the Kafka consumer reads it: a poll returns what the last fetch got, if it
   * got anything not returned yet, and otherwise fetches up to the end; what the task sends is kept
   * apart.
   */
  private static final class ConsumerLikeChannel implements ControlChannel {
    final List<ControlEvent> sent = new CopyOnWriteArrayList<>();
    private final List<ControlEvent> events = new ArrayList<>();
    private int position;
    private int fetched;
    int endsLookedUp;

    void append(ControlEvent event) {
      events.add(event);
    }

    /** The fetch in flight got the events up to the {@code count}th one after the position. */
    void fetched(int count) {
      fetched = position + count;
    }

    List<String> offered(long commitId) {
      return sent.stream()
          .filter(e -> e instanceof ControlEvent.BatchChunk && e.commitId() == commitId)
          .map(e -> ((ControlEvent.BatchChunk) e).batchId())
          .toList();
    }

    List<Long> answered() {
      return sent.stream()
          .filter(e -> e instanceof ControlEvent.TaskDone)
          .map(ControlEvent::commitId)
          .toList();
    }

    @Override
    public void send(List<? extends ControlEvent> out) {
      sent.addAll(out);
    }

    @Override
    public List<ControlEvent> poll(Duration timeout) {
      if (fetched <= position) {
        fetched = events.size();
      }
      List<ControlEvent> polled = List.copyOf(events.subList(position, fetched));
      position = fetched;
      return polled;
    }

    @Override
    public boolean keepsOrder() {
      return true;
    }

    @Override
    public Map<Integer, Long> endOffsets() {
      endsLookedUp++;
      return Map.of(0, (long) events.size());
    }

    @Override
    public boolean readUpTo(Map<Integer, Long> ends) {
      return position >= ends.get(0);
    }

    @Override
    public void wakeup() {}

    @Override
    public void close() {}
  }

  /** A channel whose poll blocks like the consumer's, and a wake-up ends with an exception. */
  private static final class WakingChannel implements ControlChannel {
    final List<Duration> timeouts = new CopyOnWriteArrayList<>();
    private boolean woken;

    @Override
    public void send(List<? extends ControlEvent> events) {}

    @Override
    public synchronized List<ControlEvent> poll(Duration timeout) {
      timeouts.add(timeout);
      long until = System.nanoTime() + timeout.toNanos();
      while (!woken && System.nanoTime() < until) {
        try {
          wait(Math.max(1, (until - System.nanoTime()) / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new WakeupException();
        }
      }
      if (woken) {
        woken = false;
        throw new WakeupException();
      }
      return List.of();
    }

    @Override
    public synchronized void wakeup() {
      woken = true;
      notifyAll();
    }

    @Override
    public void close() {}
  }

  private TaskControlLoop loop() {
    return loop(channel);
  }

  /** Task 0 over {@code format}, answering on {@code on}, no cut ahead. */
  private static Participant participant(
      ControlChannel on, SlowClosingFormat format, long timeoutMs) {
    return new Participant(
        "conn",
        0,
        Map.of("c", format),
        on,
        new FileBudget(10, 64L << 20),
        FaultInjection.none(),
        0,
        timeoutMs,
        1);
  }

  private TaskControlLoop loop(ControlChannel on, Participant participant) {
    return new TaskControlLoop(
        "conn-0", on, participant, new CompactionRunner("conn", 0, Map.of(), on), 30_000, clock);
  }

  private static void write(Participant participant, long from, long to) throws Exception {
    participant.assigned(List.of(P0));
    for (long offset = from; offset < to; offset++) {
      assertThat(
              participant.write(
                  new SinkRecord("t", 0, null, null, null, "v" + offset, offset), P0, TO))
          .isTrue();
    }
  }

  private TaskControlLoop loop(ControlChannel loopChannel) {
    SlowClosingFormat format = new SlowClosingFormat();
    format.closing.countDown();
    Participant participant =
        new Participant(
            "conn",
            0,
            Map.of("c", format),
            channel,
            new FileBudget(10, 64L << 20),
            FaultInjection.none(),
            0,
            30_000,
            1);
    return new TaskControlLoop(
        "conn-0",
        loopChannel,
        participant,
        new CompactionRunner("conn", 0, Map.of(), channel),
        30_000,
        clock);
  }

  private List<Long> answered() {
    return channel.sent.stream()
        .filter(e -> e instanceof ControlEvent.TaskDone)
        .map(ControlEvent::commitId)
        .toList();
  }
}
