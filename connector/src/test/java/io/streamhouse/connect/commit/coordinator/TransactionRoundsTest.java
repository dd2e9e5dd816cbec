package io.streamhouse.connect.commit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.TransactionCounts;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.testing.MovableClock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class TransactionRoundsTest {
  private static final TableId ACCOUNTS_A = new TableId("lake", List.of("bank"), "a");
  private static final TableId ACCOUNTS_B = new TableId("lake", List.of("bank"), "b");
  private static final TableId ENDS = new TableId("lake", List.of("bank"), "transactions");
  private static final String A = "bank.public.a";
  private static final String B = "bank.public.b";
  private static final Set<TopicPartition> READ =
      Set.of(
          new TopicPartition(A, 0),
          new TopicPartition(B, 0),
          new TopicPartition("bank.transaction", 0));

  private final MovableClock clock = new MovableClock();
  private final TransactionRounds rounds = new TransactionRounds("conn", true, 60_000, 3, clock);

  @Test
  void heldEndsAreReleasedInOrderUpToTheLimitAndNothingWhenOff() {
    rounds.held(List.of("t1", "t2"));
    rounds.held(List.of("t2", "t3", "t4"));
    assertThat(rounds.released()).containsExactly("t1", "t2", "t3");
    TransactionRounds off = new TransactionRounds("conn", false, 60_000, 3, clock);
    off.held(List.of("t1"));
    assertThat(off.released()).isEmpty();
  }

  @Test
  void aRoundCommitsOnlyWhenItHoldsEveryEventOfEachTransactionItTouches() {
    // t1 moves money from a to b: one event on each topic; its END counts both.
    Map<TableId, List<OfferedBatch>> partOfT1 =
        round(batch(ACCOUNTS_A, seen("t1", A, 1)), batch(ENDS, end("t1", A, 1, B, 1)));
    assertThat(publishes(1, partOfT1)).as("b's event has not arrived").isFalse();

    Map<TableId, List<OfferedBatch>> withoutEnd =
        round(batch(ACCOUNTS_A, seen("t1", A, 1)), batch(ACCOUNTS_B, seen("t1", B, 1)));
    assertThat(publishes(2, withoutEnd)).as("the END is not in the round").isFalse();

    Map<TableId, List<OfferedBatch>> whole =
        round(
            batch(ACCOUNTS_A, seen("t1", A, 1)),
            batch(ACCOUNTS_B, seen("t1", B, 1)),
            batch(ENDS, end("t1", A, 1, B, 1)));
    assertThat(publishes(3, whole)).isTrue();
  }

  @Test
  void eventsOfTopicsTheConnectorDoesNotReadAreNotWaitedFor() {
    Map<TableId, List<OfferedBatch>> whole =
        round(batch(ACCOUNTS_A, seen("t1", A, 2)), batch(ENDS, end("t1", A, 2, "bank.audit", 5)));
    assertThat(publishes(1, whole)).isTrue();
    assertThat(rounds.committedIncomplete()).isZero();
  }

  @Test
  void afterTheTimeoutTheRoundCommitsWhatArrivedAndCountsTheTransaction() {
    Map<TableId, List<OfferedBatch>> partial =
        round(batch(ACCOUNTS_A, seen("t1", A, 1)), batch(ENDS, end("t1", A, 1, B, 1)));
    assertThat(publishes(1, partial)).isFalse();
    clock.advance(59_999);
    Map<TableId, List<OfferedBatch>> stillPartial =
        round(batch(ACCOUNTS_A, seen("t1", A, 1)), batch(ENDS, end("t1", A, 1, B, 1)));
    assertThat(publishes(2, stillPartial)).isFalse();
    clock.advance(1);
    Map<TableId, List<OfferedBatch>> timedOut =
        round(batch(ACCOUNTS_A, seen("t1", A, 1)), batch(ENDS, end("t1", A, 1, B, 1)));
    assertThat(publishes(3, timedOut)).isTrue();
    assertThat(rounds.committedIncomplete()).isEqualTo(1);

    // Its late event commits in a later round, without its END.
    Map<TableId, List<OfferedBatch>> late = round(batch(ACCOUNTS_B, seen("t1", B, 1)));
    assertThat(publishes(4, late)).isTrue();
  }

  /**
   * A task read again what a round committed (its partitions moved, or its worker was killed,
   * before it learned of the commit) and offers it again; a keyed table rejects a batch whose key
   * index went stale. Only what the tables apply is counted: neither makes the round wait.
   */
  @Test
  void onlyTheBatchesTheTablesApplyAreCounted() {
    OfferedBatch again = batch(ACCOUNTS_B, seen("t0", B, 1));
    decided.put(again.batchId(), BatchPlan.Decision.ALREADY_PRESENT);
    OfferedBatch stale = batch(ACCOUNTS_A, seen("t1", A, 1));
    decided.put(stale.batchId(), BatchPlan.Decision.REJECT);
    Map<TableId, List<OfferedBatch>> whole =
        round(
            batch(ACCOUNTS_A, seen("t1", A, 1)),
            stale,
            batch(ACCOUNTS_B, seen("t1", B, 1)),
            again,
            batch(ENDS, end("t1", A, 1, B, 1)));
    assertThat(publishes(1, whole)).isTrue();

    decided.put(whole.get(ACCOUNTS_B).get(0).batchId(), BatchPlan.Decision.REJECT);
    assertThat(publishes(2, whole)).as("the table rejects t1's event of b").isFalse();
  }

  @Test
  void aTransactionLeavesTheReleasedOnesOnceItsEndIsInATable() {
    rounds.held(List.of("t1", "t2"));
    OfferedBatch ends = batch(ENDS, end("t1", A, 1));
    Map<TableId, List<OfferedBatch>> toCommit = round(batch(ACCOUNTS_A, seen("t1", A, 1)), ends);
    publishes(1, toCommit);
    rounds.committed(
        toCommit,
        List.of(
            new ControlEvent.TableCommitted(
                "conn", 1, ENDS, Map.of(ends.batchId(), BatchPlan.Decision.APPLY))));
    assertThat(rounds.released()).containsExactly("t2");
  }

  @Test
  void anEndInABatchIsReleasedByACoordinatorThatDidNotReleaseIt() {
    // A coordinator started since: the END written under its predecessor is released on, so that
    // events of that transaction still arriving are written.
    Map<TableId, List<OfferedBatch>> partial =
        round(batch(ACCOUNTS_A, seen("t9", A, 1)), batch(ENDS, end("t9", A, 2)));
    publishes(1, partial);
    assertThat(rounds.released()).containsExactly("t9");
  }

  /** Decisions that are not APPLY, by batch id; every other batch applies. */
  private final Map<String, BatchPlan.Decision> decided = new HashMap<>();

  /** Whether the round publishes, its tables staged as {@link #decided} says. */
  private boolean publishes(long commitId, Map<TableId, List<OfferedBatch>> toCommit) {
    Map<TableId, CommitOutcome> staged = new HashMap<>();
    toCommit.forEach(
        (table, batches) -> {
          Map<String, BatchPlan.Decision> decisions = new HashMap<>();
          batches.forEach(
              b ->
                  decisions.put(
                      b.batchId(), decided.getOrDefault(b.batchId(), BatchPlan.Decision.APPLY)));
          staged.put(
              table, new CommitOutcome(decisions, Watermarks.EMPTY, OptionalLong.of(1), 1, 1));
        });
    rounds.reading(READ);
    return rounds.publishes(commitId, toCommit, staged);
  }

  private Map<TableId, List<OfferedBatch>> round(OfferedBatch... batches) {
    Map<TableId, List<OfferedBatch>> round = new HashMap<>();
    for (OfferedBatch b : batches) {
      round.computeIfAbsent(tableOf(b), t -> new ArrayList<>()).add(b);
    }
    return round;
  }

  private final Map<String, TableId> tables = new HashMap<>();

  private TableId tableOf(OfferedBatch b) {
    return tables.get(b.batchId());
  }

  private int batches;

  private OfferedBatch batch(TableId table, TransactionCounts counts) {
    String id = table.name() + "-" + batches++;
    tables.put(id, table);
    return new OfferedBatch(
        id,
        0,
        Map.of(new TopicPartition(id, 0), new OffsetRange(0, 1)),
        new PreparedFiles(1, new byte[0], 1, 1, 1),
        0,
        counts);
  }

  private static TransactionCounts seen(String id, String topic, long events) {
    return new TransactionCounts(Map.of(id, Map.of(topic, events)), Map.of());
  }

  private static TransactionCounts end(String id, Object... topicsAndCounts) {
    Map<String, Long> events = new HashMap<>();
    for (int i = 0; i < topicsAndCounts.length; i += 2) {
      events.put((String) topicsAndCounts[i], ((Number) topicsAndCounts[i + 1]).longValue());
    }
    return new TransactionCounts(Map.of(), Map.of(id, events));
  }
}
