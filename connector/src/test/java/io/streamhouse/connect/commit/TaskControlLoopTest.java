package io.streamhouse.connect.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.testing.RecordingChannel;
import io.streamhouse.connect.testing.SlowClosingFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The task's control loop answers only the last of the commit requests that came together. */
class TaskControlLoopTest {
  @Test
  void ofTheCommitRequestsThatArrivedTogetherOnlyTheLastIsAnswered() {
    SlowClosingFormat format = new SlowClosingFormat();
    format.closing.countDown();
    RecordingChannel channel = new RecordingChannel();
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
    TaskControlLoop loop =
        new TaskControlLoop(
            "conn-0", channel, participant, new CompactionRunner("conn", 0, Map.of(), channel));

    loop.dispatch(
        List.of(
            new ControlEvent.StartCommit("conn", 1),
            new ControlEvent.StartCommit("conn", 1),
            new ControlEvent.StartCommit("conn", 2),
            new ControlEvent.StartCommit("conn", 2)));

    assertThat(channel.sent)
        .filteredOn(e -> e instanceof ControlEvent.TaskDone)
        .extracting(ControlEvent::commitId)
        .containsExactly(2L);
  }
}
