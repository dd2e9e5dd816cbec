package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.ConnectWorker;
import io.streamhouse.e2e.LocalStack;
import io.streamhouse.e2e.WorkerJmx;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * One timed drain of {@link FanoutBenchmark}: the connector runs until every record is durable,
 * watched for failures and stalls, and the worker's heap and RSS are measured along the way.
 */
final class FanoutDrain {
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(15);

  /** A drain fails when nothing new became durable for this long. */
  private static final Duration STALL_TIMEOUT = Duration.ofMinutes(3);

  private final int records;
  private final String heap;
  private final boolean restartTaskAtHalf;

  FanoutDrain(int records, String heap, boolean restartTaskAtHalf) {
    this.records = records;
    this.heap = heap;
    this.restartTaskAtHalf = restartTaskAtHalf;
  }

  /** A drain that did not finish: a stall, the overall timeout or a failed connector or task. */
  static final class Failed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Failed(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Puts {@code config} and polls every {@code pollMs} until {@code done} reaches the record count,
   * watching the worker's heap over JMX; the columns every run has, up to its peak RSS ({@code
   * payloadBytes}: of all the records). Throws {@link Failed} when the connector or a task failed,
   * when nothing new was durable for {@link #STALL_TIMEOUT}, or after {@link #DRAIN_TIMEOUT}.
   */
  Map<String, String> run(
      LocalStack stack,
      String name,
      Map<String, String> config,
      LongSupplier done,
      long pollMs,
      String format,
      int tables,
      int tasks,
      long payloadBytes)
      throws Exception {
    ConnectWorker worker = stack.worker();
    long peakHeap = 0;
    long peakLive = 0;
    try (WorkerJmx jmx = new WorkerJmx(worker.process().pid())) {
      long start = System.nanoTime();
      stack.connect().putConfig(name, config);
      long drained = 0;
      long progressAt = start;
      long quarterAt = -1;
      long quarterRecords = 0;
      boolean restarted = false;
      while (drained < records) {
        try {
          stack.connect().requireNotFailed(name);
        } catch (IllegalStateException e) {
          throw new Failed(
              name + ": " + e.getMessage() + "; " + drained + " of " + records + " drained", e);
        }
        long now = System.nanoTime();
        if (now - start > DRAIN_TIMEOUT.toNanos()) {
          throw new Failed(
              String.format(
                  "%s did not drain %,d records in %s (%,d drained); see %s",
                  name, records, DRAIN_TIMEOUT, drained, worker.logFile()),
              null);
        }
        if (now - progressAt > STALL_TIMEOUT.toNanos()) {
          throw new Failed(
              String.format(
                  "%s committed no new records for %s: %,d of %,d drained after %.0f s; see %s",
                  name, STALL_TIMEOUT, drained, records, (now - start) / 1e9, worker.logFile()),
              null);
        }
        Thread.sleep(pollMs); // polling interval of a measurement loop, not synchronization
        peakHeap = Math.max(peakHeap, jmx.heapUsed());
        peakLive = Math.max(peakLive, jmx.heapAfterGc());
        long durable = done.getAsLong();
        if (durable > drained) {
          drained = durable;
          progressAt = System.nanoTime();
          if (quarterAt < 0 && drained >= records / 4) {
            quarterAt = progressAt;
            quarterRecords = drained;
          }
          if (restartTaskAtHalf && tasks > 1 && !restarted && drained >= records / 2) {
            // A rebalance in mid-stream: the tasks hand over what they hold (hand-overs column).
            stack.connect().restartTask(name, tasks - 1);
            restarted = true;
          }
        }
      }
      long end = System.nanoTime();
      double seconds = (end - start) / 1e9;
      // Once a quarter is durable the tables exist and the JVM is warm: the rate of the rest.
      double steadySeconds = (end - quarterAt) / 1e9;
      Map<String, String> row = new LinkedHashMap<>();
      row.put("format", format);
      row.put("tables", Integer.toString(tables));
      row.put("tasks", Integer.toString(tasks));
      row.put("heap", heap);
      row.put("seconds", String.format("%.1f", seconds));
      row.put("records/s", String.format("%,.0f", records / seconds));
      row.put(
          "steady records/s",
          quarterRecords < records && steadySeconds > 0
              ? String.format("%,.0f", (records - quarterRecords) / steadySeconds)
              : "n/a");
      row.put("MB/s", String.format("%.1f", payloadBytes / seconds / 1e6));
      row.put(
          "peak heap MB (used/after GC)",
          String.format("%.0f/%.0f", peakHeap / 1e6, peakLive / 1e6));
      row.put("peak RSS MB", String.format("%.0f", worker.peakRssBytes() / 1e6));
      return row;
    }
  }
}
