package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SinkProgressTest {
  @Test
  void sumsTheLastReportOfEachTaskOfTheConnectorInAWorkerLog(@TempDir Path dir) throws IOException {
    Path log = dir.resolve("connect.log");
    Files.writeString(
        log,
        String.join(
            "\n",
            "[2026-12-01 19:28:30,921] INFO [orders|task-0] Received 6 records in total (6 since"
                + " the last report) (io.streamhouse.connect.StreamhouseSinkTask)",
            "[2026-12-01 19:28:31,921] INFO [orders|task-0] Received 2000 records in total (1994"
                + " since the last report) (io.streamhouse.connect.StreamhouseSinkTask)",
            "[2026-12-01 19:28:31,950] INFO [orders|task-1] Received 500 records in total (500"
                + " since the last report) (io.streamhouse.connect.StreamhouseSinkTask)",
            "[2026-12-01 19:28:32,000] INFO [orders-2|task-0] Received 70 records in total (70"
                + " since the last report) (io.streamhouse.connect.StreamhouseSinkTask)",
            "[2026-12-01 19:28:33,050] INFO [orders|task-0] Received metrics report:"
                + " CommitReport{} (org.apache.iceberg.metrics.LoggingMetricsReporter)",
            ""));

    assertThat(SinkProgress.reportedReceived(log, "orders")).isEqualTo(2500);
    assertThat(SinkProgress.reportedReceived(log, "orders-2")).isEqualTo(70);
    assertThat(SinkProgress.reportedReceived(log, "other")).isZero();
  }
}
