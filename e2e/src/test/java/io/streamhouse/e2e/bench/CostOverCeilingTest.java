package io.streamhouse.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.e2e.bench.CostOverCeiling.Run;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A table sink's cost is its drain minus the do-nothing drain of the same worker version and task
 * count.
 */
class CostOverCeilingTest {
  private final List<Run> runs =
      List.of(
          new Run("do-nothing sink", "4.4.0", 1, true, 10.0, 200_000),
          new Run("streamhouse", "4.4.0", 1, false, 15.0, 100_000),
          new Run("do-nothing sink (4.3 worker)", "4.3.1", 1, true, 8.0, 250_000),
          new Run("Apache Iceberg sink 1.12.0", "4.3.1", 1, false, 18.0, 80_000),
          new Run("Apache Iceberg sink 1.12.0", "4.3.1", 2, false, 12.0, 90_000));

  @Test
  void aTableSinkIsComparedWithTheDoNothingSinkOfItsOwnWorker() {
    assertThat(CostOverCeiling.columns(runs.get(1), runs))
        .containsEntry(CostOverCeiling.SECONDS, "5.0")
        .containsEntry(CostOverCeiling.MICROS, "5.00");
    assertThat(CostOverCeiling.columns(runs.get(3), runs))
        .containsEntry(CostOverCeiling.SECONDS, "10.0")
        .containsEntry(CostOverCeiling.MICROS, "8.50");
  }

  @Test
  void withoutADoNothingRunThereIsNothingToCompare() {
    assertThat(CostOverCeiling.columns(runs.get(0), runs)).containsValues("n/a", "n/a");
    assertThat(CostOverCeiling.columns(runs.get(4), runs)).containsValues("n/a", "n/a");
  }

  @Test
  void theComparisonSaysHowManyTimesOurCostTheOtherSinkAdds() {
    assertThat(CostOverCeiling.comparison("streamhouse", runs))
        .containsExactly(
            "1 task(s): Apache Iceberg sink 1.12.0 adds 10.0 s to the do-nothing drain, streamhouse 5.0 s: 2.00x");
  }
}
