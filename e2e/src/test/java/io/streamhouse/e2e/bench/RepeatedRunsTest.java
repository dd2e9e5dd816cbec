package io.streamhouse.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.e2e.bench.CostOverCeiling.Run;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Repeated drains of one configuration fold into their median; sinks are compared by medians. */
class RepeatedRunsTest {
  private final List<Run> runs =
      List.of(
          new Run("streamhouse", "4.4.0", 1, false, 12.0, 90_000),
          new Run("Apache Iceberg sink 1.12.0", "4.3.1", 1, false, 30.0, 40_000),
          new Run("streamhouse", "4.4.0", 1, false, 20.0, 60_000),
          new Run("Apache Iceberg sink 1.12.0", "4.3.1", 1, false, 18.0, 55_000),
          new Run("streamhouse", "4.4.0", 1, false, 10.0, 100_000),
          new Run("Apache Iceberg sink 1.12.0", "4.3.1", 1, false, 20.0, 50_000),
          new Run("streamhouse", "4.4.0", 2, false, 11.0, 120_000),
          new Run("streamhouse", "4.4.0", 2, false, 13.0, 100_000));

  @Test
  void aConfigurationFoldsIntoTheMedianOfItsRuns() {
    assertThat(RepeatedRuns.medians(runs))
        .containsExactly(
            new Run("streamhouse", "4.4.0", 1, false, 12.0, 90_000),
            new Run("Apache Iceberg sink 1.12.0", "4.3.1", 1, false, 20.0, 50_000),
            new Run("streamhouse", "4.4.0", 2, false, 12.0, 110_000));
  }

  @Test
  void runsWithoutASteadyRateDoNotCountForItsMedian() {
    List<Run> shortRuns =
        List.of(
            new Run("streamhouse", "4.4.0", 1, false, 3.0, -1),
            new Run("streamhouse", "4.4.0", 1, false, 4.0, 8_000),
            new Run("streamhouse", "4.4.0", 2, false, 5.0, -1));
    assertThat(RepeatedRuns.medians(shortRuns))
        .containsExactly(
            new Run("streamhouse", "4.4.0", 1, false, 3.5, 8_000),
            new Run("streamhouse", "4.4.0", 2, false, 5.0, -1));
  }

  @Test
  void theSummaryRowShowsTheMedianAndTheRangeOfTheRuns() {
    Run median = RepeatedRuns.medians(runs).get(0);
    assertThat(RepeatedRuns.row(median, runs, 1_000_000))
        .containsEntry("runs", "3")
        .containsEntry("median seconds", "12.0")
        .containsEntry("median records/s", "83,333")
        .containsEntry("records/s of the runs (min-max)", "50,000-100,000")
        .containsEntry("median steady records/s", "90,000");
  }

  @Test
  void throughputIsComparedBetweenMediansPerTaskCount() {
    assertThat(RepeatedRuns.throughputRatios("streamhouse", runs))
        .containsExactly(
            "1 task(s): streamhouse drains 1.67x as fast as Apache Iceberg sink 1.12.0 (median 12.0 s against 20.0 s; "
                + "turn by turn 2.50, 0.90, 2.00)");
  }

  @Test
  void theTimeOfTheLastRecordReadFoldsIntoItsMedianAndIsCompared() {
    List<Run> read =
        List.of(
            new Run("streamhouse", "4.3.1", 2, false, 11.4, 200_000, 10.6),
            new Run("Apache Iceberg sink 1.12.0", "4.3.1", 2, false, 22.8, 50_000, 20.0),
            new Run("streamhouse", "4.3.1", 2, false, 13.5, 180_000, 11.4),
            new Run("Apache Iceberg sink 1.12.0", "4.3.1", 2, false, 24.0, 48_000, 21.0),
            new Run("streamhouse", "4.3.1", 2, false, 11.3, 210_000, 10.2));
    Run median = RepeatedRuns.medians(read).get(0);
    assertThat(median.readSeconds()).isEqualTo(10.6);
    assertThat(RepeatedRuns.row(median, read, 1_000_000))
        .containsEntry("median last record read s", "10.6");
    assertThat(RepeatedRuns.throughputRatios("streamhouse", read))
        .containsExactly(
            "2 task(s): streamhouse drains 2.05x as fast as Apache Iceberg sink 1.12.0 (median 11.4 s against 23.4 s; "
                + "turn by turn 2.00, 1.78; last record read at 10.6 s against 20.5 s, 1.93x)");
  }
}
