package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.MaintenanceSettings;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DeleteCompactionTriggerTest {
  private static final long SMALL = 16L << 20;

  private static MaintenanceSettings settings(double ratio) {
    return new MaintenanceSettings(
        true, 60_000, 60_000, 0, 1, true, 5, 1L << 30, SMALL, 0, ratio, 6_000, 0);
  }

  @ParameterizedTest(name = "{0} rows, {1} deleted, {2} bytes, {3} files, ratio {4}: {5}")
  @CsvSource({
    // a large table: the ratio decides
    "1000000, 299999, 40000000, 50, 0.3, false",
    "1000000, 300000, 40000000, 50, 0.3, true",
    // a small table: any deleted row once it holds min-input-files (5) files
    "100000, 1, 3000000, 5, 0.3, true",
    "100000, 1, 3000000, 4, 0.3, false",
    "100000, 0, 3000000, 9, 0.3, false",
    // just at the small-table bound: the ratio again
    "100000, 10000, 16777216, 9, 0.3, false",
    "100000, 10000, 16777215, 9, 0.3, true",
    // delete compaction off
    "100000, 90000, 3000000, 9, 0, false",
    // a summary that does not say how large the table is: the ratio
    "100000, 10000, -1, -1, 0.3, false",
  })
  void aTableIsDueAtTheRatioOrWithAnyDeletedRowWhileItIsSmallAndHoldsEnoughFiles(
      long rows, long deleted, long bytes, long files, double ratio, boolean due) {
    Map<String, String> summary = new HashMap<>();
    summary.put("total-records", Long.toString(rows));
    summary.put("total-position-deletes", Long.toString(deleted));
    if (bytes >= 0) {
      summary.put("total-files-size", Long.toString(bytes));
      summary.put("total-data-files", Long.toString(files / 2 + files % 2));
      summary.put("total-delete-files", Long.toString(files / 2));
    }
    assertThat(DeleteCompactionTrigger.due(summary, settings(ratio))).isEqualTo(due);
  }
}
