package io.streamhouse.connect.commit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.table.AtomicRounds;
import io.streamhouse.connect.table.CommitLoop;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A round's tables of an atomic catalog: staged together, published once, staged again as a whole
 * after a conflict, and never published in part.
 */
class AtomicRoundCommitTest {
  private static final TableId ORDERS = new TableId("c", List.of("ns"), "orders");
  private static final TableId LINES = new TableId("c", List.of("ns"), "lines");
  private static final TableId DEAD_LETTERS = new TableId("c", List.of("errors"), "dead_letters");

  private final ExecutorService committers = Executors.newFixedThreadPool(2);
  private final FakeAtomicCatalog catalog = new FakeAtomicCatalog();
  private final AtomicRoundCommit commit =
      new AtomicRoundCommit(
          "conn",
          committers,
          FaultInjection.parse(""),
          new TableCommit(Map.of(), FaultInjection.parse(""), CommitObserver.NONE));

  @AfterEach
  void stop() {
    committers.shutdownNow();
  }

  @Test
  void everyTableIsStagedAndPublishedInOneTransaction() {
    Map<TableId, CommitOutcome> outcomes =
        commit.commit("c", catalog, 7, round(ORDERS, LINES), true, null);

    assertThat(outcomes).containsOnlyKeys(ORDERS, LINES);
    assertThat(catalog.published).containsExactly(Set.of(ORDERS, LINES));
    assertThat(catalog.abandoned).isZero();
  }

  @Test
  void aConflictStagesTheWholeRoundAgain() {
    catalog.conflicts = 2;

    commit.commit("c", catalog, 7, round(ORDERS, LINES), true, null);

    assertThat(catalog.staged).as("both tables staged in each of three attempts").hasSize(6);
    assertThat(catalog.abandoned).isEqualTo(2);
    assertThat(catalog.published).containsExactly(Set.of(ORDERS, LINES));
  }

  @Test
  void aTableThatCannotBeStagedLeavesEveryTableAsItWas() {
    catalog.failStaging = LINES;

    assertThatThrownBy(() -> commit.commit("c", catalog, 7, round(ORDERS, LINES), true, null))
        .hasMessageContaining("staging " + LINES)
        .hasRootCauseMessage("catalog down");
    assertThat(catalog.published).isEmpty();
    assertThat(catalog.abandoned).isEqualTo(1);
  }

  @Test
  void conflictsWithoutEndFailTheRoundAfterTheLastAttempt() {
    catalog.conflicts = Integer.MAX_VALUE;

    assertThatThrownBy(() -> commit.commit("c", catalog, 7, round(ORDERS, LINES), true, null))
        .isInstanceOf(CommitLoop.ConflictsExhaustedException.class)
        .hasMessageContaining("no table changed");
    assertThat(catalog.published).isEmpty();
    assertThat(catalog.abandoned).isEqualTo(CommitLoop.MAX_PLAN_ATTEMPTS);
  }

  @Test
  void theOtherTablesWaitWhenTheDeadLetterTableDoesNotTakeEveryBatch() {
    catalog.rejects = DEAD_LETTERS;

    Map<TableId, CommitOutcome> outcomes =
        commit.commit("c", catalog, 7, round(DEAD_LETTERS, ORDERS), true, DEAD_LETTERS);

    assertThat(outcomes).containsOnlyKeys(DEAD_LETTERS);
    assertThat(catalog.staged).containsExactly(DEAD_LETTERS);
  }

  @Test
  void nothingIsPublishedWhenNoTableChanges() {
    catalog.alreadyPresent = true;

    Map<TableId, CommitOutcome> outcomes =
        commit.commit("c", catalog, 7, round(ORDERS, LINES), true, null);

    assertThat(outcomes.values())
        .allSatisfy(
            o -> assertThat(o.decisions()).containsValue(BatchPlan.Decision.ALREADY_PRESENT));
    assertThat(catalog.published).isEmpty();
  }

  /**
   * Transaction-consistent CDC: a guard that makes the round wait sees the final decisions of every
   * staged table; nothing is published, and only the decisions no later round changes go out.
   */
  @Test
  void aRoundTheGuardHoldsIsNotPublishedAndTellsOnlyTheFinalDecisions() {
    catalog.rejects = LINES;
    List<Map<TableId, CommitOutcome>> seen = new ArrayList<>();
    commit.guard(
        (commitId, tables, staged) -> {
          seen.add(staged);
          return false;
        });
    Map<TableId, CommitOutcome> outcomes =
        commit.commit("c", catalog, 7, round(ORDERS, LINES), true, null);

    assertThat(seen).singleElement().satisfies(s -> assertThat(s).containsOnlyKeys(ORDERS, LINES));
    assertThat(catalog.published).isEmpty();
    assertThat(catalog.abandoned).isEqualTo(1);
    assertThat(outcomes.get(ORDERS).decisions()).as("applies once the round goes").isEmpty();
    assertThat(outcomes.get(LINES).decisions())
        .containsExactly(Map.entry("b-lines", BatchPlan.Decision.REJECT));
    assertThat(outcomes.values()).allSatisfy(o -> assertThat(o.snapshotId()).isEmpty());
  }

  private static Map<TableId, List<OfferedBatch>> round(TableId... tables) {
    Map<TableId, List<OfferedBatch>> round = new LinkedHashMap<>();
    int partition = 0;
    for (TableId table : tables) {
      round.put(
          table,
          List.of(
              new OfferedBatch(
                  "b-" + table.name(),
                  0,
                  Map.of(new TopicPartition("t", partition++), new OffsetRange(0, 10)),
                  new PreparedFiles(1, new byte[0], 1, 10, 100),
                  0)));
    }
    return round;
  }

  /** Records what was staged and published; conflicts, failures and rejections on request. */
  private static final class FakeAtomicCatalog implements AtomicRounds {
    final List<TableId> staged = Collections.synchronizedList(new ArrayList<>());
    final List<Set<TableId>> published = new ArrayList<>();
    int abandoned;
    int conflicts;
    TableId failStaging;
    TableId rejects;
    boolean alreadyPresent;

    @Override
    public Round begin(long commitId) {
      List<TableId> round = Collections.synchronizedList(new ArrayList<>());
      return new Round() {
        @Override
        public CommitOutcome stage(TableId table, List<OfferedBatch> batches, boolean fullRound) {
          staged.add(table);
          if (table.equals(failStaging)) {
            throw new IllegalStateException("catalog down");
          }
          BatchPlan.Decision decision =
              table.equals(rejects)
                  ? BatchPlan.Decision.REJECT
                  : alreadyPresent ? BatchPlan.Decision.ALREADY_PRESENT : BatchPlan.Decision.APPLY;
          if (decision == BatchPlan.Decision.APPLY) {
            round.add(table);
          }
          Map<String, BatchPlan.Decision> decisions = new LinkedHashMap<>();
          batches.forEach(b -> decisions.put(b.batchId(), decision));
          // A rejected batch is one the checks refused: its files are left alone.
          return new CommitOutcome(
              decisions,
              Watermarks.EMPTY,
              decision == BatchPlan.Decision.APPLY ? OptionalLong.of(1) : OptionalLong.empty(),
              10,
              1,
              decision == BatchPlan.Decision.REJECT ? decisions.keySet() : Set.of());
        }

        @Override
        public boolean changesAnyTable() {
          return !round.isEmpty();
        }

        @Override
        public void publish() throws CommitLoop.ConcurrentCommitException {
          if (conflicts > 0) {
            conflicts--;
            throw new CommitLoop.ConcurrentCommitException("another writer got in first", null);
          }
          published.add(Set.copyOf(round));
        }

        @Override
        public void abandon() {
          abandoned++;
        }
      };
    }
  }
}
