package io.streamhouse.connect.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.testing.MovableClock;
import io.streamhouse.connect.testing.RecordingChannel;
import io.streamhouse.connect.testing.SlowClosingFormat;
import java.util.List;
import java.util.Map;
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

  private TaskControlLoop loop() {
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
        channel,
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
