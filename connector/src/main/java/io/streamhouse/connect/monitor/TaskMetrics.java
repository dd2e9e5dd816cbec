package io.streamhouse.connect.monitor;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.common.metrics.Gauge;

/**
 * Per-task counters (Connect adds the connector and task tags): what the task wrote and what it
 * could not.
 */
public final class TaskMetrics {
  public static final List<String> NAMES =
      List.of(
          "task-records-written-total",
          "task-records-dead-lettered-total",
          "task-records-skipped-total",
          "control-events-rejected-total",
          "task-offsets-rewound-total",
          "task-commit-answer-ms",
          "task-late-commit-answers-total");

  private final AtomicLong written = new AtomicLong();
  private final AtomicLong deadLettered = new AtomicLong();
  private final AtomicLong skipped = new AtomicLong();

  /**
   * {@code controlEventsRejected}: the task's count of refused control events; {@code
   * offsetsRewound}: offsets it read again after a rewind; {@code lastAnswerMs}, {@code
   * lateAnswers}: its answers to commit requests.
   */
  public TaskMetrics(
      PluginGauges gauges,
      LongSupplier controlEventsRejected,
      LongSupplier offsetsRewound,
      LongSupplier lastAnswerMs,
      LongSupplier lateAnswers) {
    LinkedHashMap<String, String> tags = new LinkedHashMap<>();
    gauges.register(
        "task-records-written-total",
        "Record writes into table writers (a record routed to two tables counts twice; a counter)",
        tags,
        (Gauge<Long>) (config, now) -> written.get());
    gauges.register(
        "task-records-dead-lettered-total",
        "Records that could not be written: sent to the dead-letter queue, skipped (see "
            + "task-records-skipped-total), or the one that failed the task (a counter)",
        tags,
        (Gauge<Long>) (config, now) -> deadLettered.get());
    gauges.register(
        "task-records-skipped-total",
        "Records that could not be written and went nowhere: errors.tolerance=all without a dead-letter "
            + "destination; each is logged, rate-limited (a counter)",
        tags,
        (Gauge<Long>) (config, now) -> skipped.get());
    gauges.register(
        "control-events-rejected-total",
        "Control events this task refused: malformed, truncated, oversized, of an unknown version, or without "
            + "this connector's MAC (a counter)",
        tags,
        (Gauge<Long>) (config, now) -> controlEventsRejected.getAsLong());
    gauges.register(
        "task-offsets-rewound-total",
        "Offsets this task had read and read again after a rewind: a schema change, a rejected batch, or "
            + "partitions that left the task (rebalance, stop) before the coordinator committed its batches "
            + "for them; the records among them are written twice (a counter)",
        tags,
        (Gauge<Long>) (config, now) -> offsetsRewound.getAsLong());
    gauges.register(
        "task-commit-answer-ms",
        "Milliseconds from the last commit request to this task's answer: taking the files out of its "
            + "writers, closing them and offering them (a gauge)",
        tags,
        (Gauge<Long>) (config, now) -> lastAnswerMs.getAsLong());
    gauges.register(
        "task-late-commit-answers-total",
        "Answers to commit requests that took longer than commit.timeout.ms: the coordinator committed "
            + "those rounds without this task's batches, which went into the next round (a counter)",
        tags,
        (Gauge<Long>) (config, now) -> lateAnswers.getAsLong());
  }

  public void written() {
    written.incrementAndGet();
  }

  public void deadLettered() {
    deadLettered.incrementAndGet();
  }

  /** A bad record skipped: no dead-letter destination took it. */
  public void skipped() {
    skipped.incrementAndGet();
  }
}
