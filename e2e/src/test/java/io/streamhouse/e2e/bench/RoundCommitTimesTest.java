package io.streamhouse.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** Round commit durations from the coordinator's lines: per-table rounds and atomic ones. */
class RoundCommitTimesTest {
  private static final String COORDINATOR =
      " (io.streamhouse.connect.commit.coordinator.Coordinator)";

  private static String table(String connector, long commit, String table, long ms) {
    return "[2026-12-07 10:00:10,000] INFO ["
        + connector
        + "|task-0] Commit "
        + commit
        + " of "
        + table
        + ": 1 batches, 50 records in 1 files, "
        + ms
        + " ms, watermarks {fanout-20:0=50}"
        + COORDINATOR;
  }

  private static String transaction(String connector, long commit, String catalog, long ms) {
    return "[2026-12-07 10:00:10,000] INFO ["
        + connector
        + "|task-0] Commit "
        + commit
        + " of catalog "
        + catalog
        + ": 2 of 2 tables changed in one transaction, "
        + ms
        + " ms, 1 attempts"
        + COORDINATOR;
  }

  private static String round(String connector, long commit, long ms) {
    return "[2026-12-07 10:00:10,000] INFO ["
        + connector
        + "|task-0] Commit "
        + commit
        + " round: 2 tables in "
        + ms
        + " ms after 900 ms waiting for the tasks"
        + COORDINATOR;
  }

  @Test
  void aPerTableRoundTakesItsLongestTableCommit() {
    List<String> log =
        List.of(
            table("c1", 1, "bench:default.fanout_t0", 30),
            table("c1", 1, "bench:default.fanout_t1", 45),
            table("c1", 1, "bench:default.fanout_t2", 20),
            round("c1", 1, 60),
            table("c1", 2, "bench:default.fanout_t0", 100),
            table("c1", 2, "bench:default.fanout_t1", 5),
            round("c1", 2, 110),
            table("c1", 3, "bench:default.fanout_t0", 10),
            round("c1", 3, 12),
            table("c2", 2, "bench:default.fanout_t0", 9999),
            round("c2", 2, 9999));
    assertThat(RoundCommitTimes.roundCommitMs(log, "c1")).containsExactlyInAnyOrder(45L, 100L, 10L);
    assertThat(RoundCommitTimes.figures(log, "c1"))
        .containsEntry(RoundCommitTimes.COMMIT_COLUMN, "45/100/100 (3)")
        .containsEntry(RoundCommitTimes.WALL_COLUMN, "60/110/110");
  }

  @Test
  void anAtomicRoundTakesItsTransactionsNotItsTablesLines() {
    // Each table of a transaction repeats its time; two atomic catalogs commit one after the other.
    List<String> log =
        List.of(
            transaction("c1", 7, "lake", 812),
            table("c1", 7, "bench:run_a.fanout_t0", 812),
            table("c1", 7, "bench:run_a.fanout_t1", 812),
            round("c1", 7, 830),
            transaction("c1", 8, "lake", 300),
            table("c1", 8, "bench:run_a.fanout_t0", 300),
            transaction("c1", 8, "other", 200),
            table("c1", 8, "other:run_b.fanout_t0", 200),
            round("c1", 8, 520),
            transaction("c2", 8, "lake", 5000));
    assertThat(RoundCommitTimes.roundCommitMs(log, "c1")).containsExactlyInAnyOrder(812L, 500L);
    assertThat(RoundCommitTimes.figures(log, "c1"))
        .containsEntry(RoundCommitTimes.COMMIT_COLUMN, "500/812/812 (2)")
        .containsEntry(RoundCommitTimes.WALL_COLUMN, "520/830/830");
  }

  @Test
  void percentilesAreNearestRanks() {
    List<Long> oneToTwenty = new ArrayList<>(LongStream.rangeClosed(1, 20).boxed().toList());
    Collections.shuffle(oneToTwenty, new Random(1));
    assertThat(RoundCommitTimes.percentiles(oneToTwenty)).isEqualTo("10/19/20");
    assertThat(RoundCommitTimes.percentiles(List.of(7L))).isEqualTo("7/7/7");
    assertThat(RoundCommitTimes.figures(List.of(), "c1"))
        .containsEntry(RoundCommitTimes.COMMIT_COLUMN, "n/a")
        .containsEntry(RoundCommitTimes.WALL_COLUMN, "n/a");
  }
}
