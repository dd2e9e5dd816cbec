package io.streamhouse.connect.commit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.config.MaintenanceSettings;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.MaintenanceReport;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.schema.EvolutionMode;
import io.streamhouse.connect.schema.FieldType;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableFormat;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.testing.MovableClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

class TableMaintenanceTest {
  private static final TableId A = new TableId("lake", List.of("db"), "a");
  private static final TableId B = new TableId("lake", List.of("db"), "b");
  private static final long INTERVAL = 60_000;

  private final MovableClock clock = new MovableClock();
  private final RecordingFormat format = new RecordingFormat(clock);
  private final List<String> heard = new ArrayList<>();

  private static final long DELETE_GAP = 20_000;

  private TableMaintenance maintenance(long budgetMs) {
    return new TableMaintenance(
        "sink",
        Map.of("lake", format),
        new MaintenanceSettings(
            true,
            INTERVAL,
            budgetMs,
            3_600_000,
            10,
            true,
            5,
            1 << 20,
            16L << 20,
            0,
            0.3,
            DELETE_GAP,
            0),
        clock,
        FaultInjection.none(),
        new TableMaintenance.MaintenanceObserver() {
          @Override
          public void maintained(TableId table, MaintenanceReport report, long durationMs) {
            heard.add("maintained " + table.name() + " expired " + report.snapshotsExpired());
          }

          @Override
          public void maintenanceFailed(TableId table) {
            heard.add("failed " + table.name());
          }
        });
  }

  private static void committed(TableMaintenance maintenance, TableId table) {
    maintenance.committed(table, null, 0, 0, 0);
  }

  @Test
  void aTableIsMaintainedAfterItsFirstCommitThenOncePerInterval() {
    try (TableMaintenance maintenance = maintenance(60_000)) {
      assertThat(maintenance.pass()).as("no table committed yet").isZero();
      committed(maintenance, A);
      assertThat(maintenance.pass()).isEqualTo(1);
      committed(maintenance, A);
      clock.advance(INTERVAL - 1);
      assertThat(maintenance.pass()).as("not due again before its interval").isZero();
      clock.advance(1);
      assertThat(maintenance.pass()).isEqualTo(1);
      assertThat(format.calls).containsExactly(A, A);
      assertThat(heard).containsExactly("maintained a expired 3", "maintained a expired 3");
    }
  }

  @Test
  void aFailingTableIsCountedAndDoesNotStopTheOthers() {
    format.failing.add(A);
    try (TableMaintenance maintenance = maintenance(60_000)) {
      committed(maintenance, A);
      clock.advance(1);
      committed(maintenance, B);
      assertThat(maintenance.pass()).isEqualTo(2);
      assertThat(heard).containsExactly("failed a", "maintained b expired 3");
      clock.advance(INTERVAL);
      format.failing.clear();
      assertThat(maintenance.pass()).as("the failed table is tried again").isEqualTo(2);
      assertThat(heard.subList(2, 4))
          .containsExactlyInAnyOrder("maintained a expired 3", "maintained b expired 3");
    }
  }

  @Test
  void noTableStartsAfterTheTimeBudgetTheRestWaitsForTheNextPass() {
    format.spendMs = 30;
    try (TableMaintenance maintenance = maintenance(10)) {
      committed(maintenance, A);
      clock.advance(1);
      committed(maintenance, B);
      assertThat(maintenance.pass()).as("the stalest table, then the budget is spent").isEqualTo(1);
      assertThat(format.calls).containsExactly(A);
      assertThat(maintenance.pass()).isEqualTo(1);
      assertThat(format.calls).containsExactly(A, B);
    }
  }

  @Test
  void aTableWithManyDeletedRowsIsDueAfterTheCommitThatSaysSoButNotBeforeTheGap() {
    format.passClockMs = 10_000; // twice a pass's time is the gap itself: the gap holds
    try (TableMaintenance maintenance = maintenance(60_000)) {
      committed(maintenance, A);
      assertThat(maintenance.pass()).isEqualTo(1);
      format.deletedShare = 0.29;
      clock.advance(1_000);
      committed(maintenance, A);
      assertThat(maintenance.pass()).as("below the ratio: its interval").isZero();
      format.deletedShare = 0.3;
      committed(maintenance, A);
      assertThat(maintenance.pass()).as("at the ratio, but within the gap").isZero();
      clock.advance(DELETE_GAP - 1_000);
      assertThat(maintenance.pass()).as("the gap is over: due without another commit").isEqualTo(1);
      clock.advance(1);
      committed(maintenance, A);
      assertThat(maintenance.pass()).isZero();
      clock.advance(DELETE_GAP);
      assertThat(maintenance.pass()).isEqualTo(1);
      format.deletedShare = Double.NaN; // the question fails: no effect on the commit, not due
      clock.advance(DELETE_GAP);
      committed(maintenance, A);
      assertThat(maintenance.pass()).isZero();
      assertThat(format.calls).containsExactly(A, A, A);
    }
  }

  @Test
  void aCheapDeleteCompactionIsDueAgainTwiceItsDurationAfterItNotAfterTheWholeGap() {
    format.passClockMs = 400;
    format.deletedShare = 0.5;
    try (TableMaintenance maintenance = maintenance(60_000)) {
      committed(maintenance, A);
      assertThat(maintenance.pass()).isEqualTo(1);
      committed(maintenance, A);
      clock.advance(799);
      assertThat(maintenance.pass()).as("within twice the 400 ms pass").isZero();
      clock.advance(1);
      assertThat(maintenance.pass()).as("long before the 20 s gap").isEqualTo(1);
      format.passClockMs = 15_000;
      clock.advance(1_200);
      committed(maintenance, A);
      assertThat(maintenance.pass()).isEqualTo(1);
      committed(maintenance, A);
      clock.advance(DELETE_GAP - 1);
      assertThat(maintenance.pass()).as("a slow pass: the gap caps the wait").isZero();
      clock.advance(1);
      assertThat(maintenance.pass()).isEqualTo(1);
      assertThat(format.calls).containsExactly(A, A, A, A);
    }
  }

  @Test
  void afterEachPassTheThreadRestsAsLongAsThePassTookBeforeTheNextTable() {
    format.passClockMs = 1_000;
    try (TableMaintenance maintenance = maintenance(60_000)) {
      committed(maintenance, A);
      clock.advance(1);
      committed(maintenance, B);
      assertThat(maintenance.pass()).as("a, then the thread rests").isEqualTo(1);
      clock.advance(999);
      assertThat(maintenance.pass()).isZero();
      clock.advance(1);
      assertThat(maintenance.pass()).isEqualTo(1);
      assertThat(format.calls).containsExactly(A, B);
    }
  }

  /**
   * Records maintain calls; its tables expire 3 snapshots each time, or fail. A pass moves the
   * clock by {@code passClockMs}.
   */
  private static final class RecordingFormat implements TableFormat {
    private final MovableClock clock;
    volatile long passClockMs;
    volatile double deletedShare;
    final List<TableId> calls = new ArrayList<>();
    final java.util.Set<TableId> failing = ConcurrentHashMap.newKeySet();
    volatile long spendMs;

    RecordingFormat(MovableClock clock) {
      this.clock = clock;
    }

    @Override
    public MaintenanceReport maintain(
        TableId table,
        MaintenanceSettings settings,
        long deadlineNanos,
        io.streamhouse.connect.table.MaintenanceCheckpoints checkpoints) {
      calls.add(table);
      clock.advance(passClockMs);
      if (failing.contains(table)) {
        throw new IllegalStateException("catalog down");
      }
      long until = System.nanoTime() + spendMs * 1_000_000;
      while (System.nanoTime() < until) {
        Thread.onSpinWait(); // time spent working, not a synchronization
      }
      return MaintenanceReport.expired(3, 4).plus(MaintenanceReport.liveDataFiles(7));
    }

    @Override
    public boolean deletesDue(TableId table, MaintenanceSettings settings) {
      if (Double.isNaN(deletedShare)) {
        throw new IllegalStateException("catalog down");
      }
      return deletedShare >= settings.compactDeleteRatio();
    }

    @Override
    public Optional<TableWriter> openWriter(
        TableId table, RouteSettings route, SinkRecord sample, FileBudget budget) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void evolve(TableId table, FieldType.Struct row, EvolutionMode mode) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Watermarks watermarks(TableId table) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CommitOutcome commit(
        TableId table, long commitId, List<OfferedBatch> batches, boolean fullRound) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void discard(TableId table, List<PreparedFiles> files) {}

    @Override
    public void close() {}
  }
}
