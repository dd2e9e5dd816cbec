package io.streamhouse.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The commit figures of a fan-out run, read from the coordinator's log lines. */
class FanoutBenchmarkTest {
  @Test
  void countsRoundsPastTheTimeoutAndTheLongestWaitForTheTasks() {
    List<String> log =
        List.of(
            "[2026-12-01 10:00:10,000] INFO [c1|task-0] Commit 1 of default.fanout_t0: 1 batches,"
                + " 50 records in 2 files, 30 ms, watermarks {fanout-2:0=50} (io.streamhouse.connect.commit.coordinator.Coordinator)",
            "[2026-12-01 10:00:10,010] INFO [c1|task-0] Commit 1 of default.fanout_t1: 1 batches,"
                + " 50 records in 1 files, 20 ms, watermarks {fanout-2:1=50} (io.streamhouse.connect.commit.coordinator.Coordinator)",
            "[2026-12-01 10:00:10,020] INFO [c1|task-0] Commit 1 round: 2 tables in 60 ms after 900 ms"
                + " waiting for the tasks (io.streamhouse.connect.commit.coordinator.Coordinator)",
            "[2026-12-01 10:00:50,000] WARN [c1|task-0] Commit 2: no report for [fanout-2-1] after"
                + " 30000 ms; committing what arrived (io.streamhouse.connect.commit.coordinator.Coordinator)",
            "[2026-12-01 10:00:50,100] INFO [c1|task-0] Commit 2 round: 1 tables in 100 ms after 30004 ms"
                + " waiting for the tasks (io.streamhouse.connect.commit.coordinator.Coordinator)",
            "[2026-12-01 10:00:09,500] INFO [c1|task-1] Answered commit 1 in 812 ms: detach 3 ms,"
                + " flush 800 ms, 100 new batches with 100 files and 9 bytes, 0 batches offered again"
                + " (io.streamhouse.connect.commit.task.CommitAnswers)",
            "[2026-12-01 10:00:49,500] WARN [c1|task-0] Answered commit 2 in 31000 ms, longer than"
                + " commit.timeout.ms (30000 ms): the coordinator commits that round without these"
                + " 3 batches (io.streamhouse.connect.commit.task.CommitAnswers)",
            "[2026-12-01 10:00:51,000] INFO [c1|task-1] Handed over 0 batches in 1 ms; the next"
                + " owners skip what they hold (io.streamhouse.connect.commit.task.HandOver)",
            "[2026-12-01 10:00:52,000] INFO [c1|task-1] Handed over 200 batches in 1500 ms; the next"
                + " owners skip what they hold (io.streamhouse.connect.commit.task.HandOver)",
            "[2026-12-01 10:00:53,000] INFO [c1|task-1] Handed in 3 batches (2 closed now) in 700"
                + " ms; the coordinator commits them, the next owners read on after them"
                + " (io.streamhouse.connect.commit.task.HandOver)",
            "[2026-12-01 10:00:53,500] INFO [c1|task-1] Offered its 200 handed-in batches in a round"
                + " 1800 ms after the stop; the coordinator commits them, the next owners read on"
                + " after them (io.streamhouse.connect.commit.task.HandOver)",
            "[2026-12-01 10:00:53,600] INFO [c1|task-1] No round took its 4 handed-in batches within"
                + " 1000 ms of the stop; it leaves them to the next owners, which read on after them"
                + " and offer them in their rounds (io.streamhouse.connect.commit.task.HandOver)",
            "[2026-12-01 10:00:54,000] INFO [c1|task-0] Reads [fanout-0, fanout-1] from now on, 2100"
                + " ms after their assignment (io.streamhouse.connect.RecordIntake)",
            "[2026-12-01 10:00:54,000] WARN [c1|task-0] Reads [fanout-2] after 30000 ms without a"
                + " decision on the batches handed in for [fanout-2] (their task stopped before its"
                + " round?): ... (io.streamhouse.connect.RecordIntake)",
            "[2026-12-01 10:00:52,000] INFO [c2|task-1] Handed over 9 batches in 9999 ms; the next"
                + " owners skip what they hold (io.streamhouse.connect.commit.task.HandOver)",
            "[2026-12-01 10:00:50,100] WARN [c2|task-0] Commit 9: no report for [x-0] after 30000 ms;"
                + " committing what arrived (io.streamhouse.connect.commit.coordinator.Coordinator)",
            "[2026-12-01 10:00:50,100] INFO [c2|task-0] Commit 9 round: 1 tables in 5 ms after 99999 ms"
                + " waiting for the tasks (io.streamhouse.connect.commit.coordinator.Coordinator)");
    assertThat(CommitLogs.commitFigures(log, "c1"))
        .containsEntry("files/table/commit (mean/max)", "1.5/2")
        .containsEntry("commit rounds", "2")
        .containsEntry("round ms (mean/max)", "80/100")
        .containsEntry("rounds past timeout", "1")
        .containsEntry("max wait for tasks ms", "30004")
        .containsEntry("max task answer ms", "31000")
        .containsEntry("hand-overs (max ms)", "4 (1800)")
        .containsEntry(
            "partitions held for a hand-over (max ms, without decision)", "2 (30000, 1)");
  }

  @Test
  void aRunWithoutRoundsHasNoFigures() {
    assertThat(CommitLogs.commitFigures(List.of(), "c1"))
        .containsEntry("commit rounds", "0")
        .containsEntry("round ms (mean/max)", "n/a")
        .containsEntry("rounds past timeout", "0")
        .containsEntry("max wait for tasks ms", "n/a")
        .containsEntry("max task answer ms", "n/a")
        .containsEntry("hand-overs (max ms)", "0")
        .containsEntry("partitions held for a hand-over (max ms, without decision)", "0");
  }
}
