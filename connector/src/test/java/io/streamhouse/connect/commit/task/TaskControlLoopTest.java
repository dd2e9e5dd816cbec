package io.streamhouse.connect.commit.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.testing.MovableClock;
import io.streamhouse.connect.testing.RecordingChannel;
import io.streamhouse.connect.testing.SlowClosingFormat;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.Test;

/**
 * The task's control loop answers only the last of the commit requests that came together, and only
 * those of the latest coordinator while it is heard.
 */
class TaskControlLoopTest {
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
