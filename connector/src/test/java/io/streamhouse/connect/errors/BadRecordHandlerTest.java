package io.streamhouse.connect.errors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;
import org.slf4j.event.SubstituteLoggingEvent;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.helpers.SubstituteLogger;

/**
 * What becomes of a bad record: {@code errors.tolerance=all} means what Connect means (reported
 * where the worker has a destination, else skipped and logged, never a task failure); {@code none}
 * fails the task.
 */
class BadRecordHandlerTest {
  private static final RecordConversionException WIDENING =
      new RecordConversionException(
          "amount", "field 'amount' is string but column is float64: only widening is allowed");

  private static SinkRecord record(long offset) {
    return new SinkRecord("dl", 0, null, null, null, "v", offset);
  }

  @Test
  void toleranceAllWithoutADeadLetterDestinationSkipsTheRecordInsteadOfFailingTheTask() {
    BadRecordHandler handler = new BadRecordHandler("conn", 1, true, null, () -> 0L);
    assertThat(handler.handle(record(1), "local:e2e.dl", WIDENING))
        .isEqualTo(BadRecordHandler.Outcome.SKIPPED);
  }

  @Test
  void toleranceAllWithConnectsReporterReportsTheRecordWithItsCoordinates() {
    List<SinkRecord> reported = new ArrayList<>();
    List<Throwable> errors = new ArrayList<>();
    ErrantRecordReporter reporter =
        (r, e) -> {
          reported.add(r);
          errors.add(e);
          return CompletableFuture.completedFuture(null);
        };
    BadRecordHandler handler = new BadRecordHandler("conn", 1, true, reporter, () -> 0L);
    assertThat(handler.handle(record(7), "local:e2e.dl", WIDENING))
        .isEqualTo(BadRecordHandler.Outcome.REPORTED);
    assertThat(reported).extracting(SinkRecord::kafkaOffset).containsExactly(7L);
    assertThat(errors.get(0).getMessage())
        .contains(
            "Connector conn task 1",
            "topic dl partition 0 offset 7",
            "table local:e2e.dl",
            "field amount");
  }

  @Test
  void toleranceNoneFailsTheTaskNamingWhatIsWrong() {
    BadRecordHandler handler = new BadRecordHandler("conn", 1, false, null, () -> 0L);
    assertThatThrownBy(() -> handler.handle(record(1), "local:e2e.dl", WIDENING))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining(
            "Connector conn task 1: cannot write the record at topic dl partition 0 offset 1 to"
                + " table local:e2e.dl: field amount: field 'amount' is string");
  }

  @Test
  void skippedRecordsAreLoggedTheFirstThenOncePerIntervalWithHowManyWereNotLogged() {
    Queue<SubstituteLoggingEvent> events = new ConcurrentLinkedQueue<>();
    AtomicLong now = new AtomicLong(1_000);
    SkippedRecordLog log =
        new SkippedRecordLog(new SubstituteLogger("test", events, false), 30_000, now::get);

    log.skipped("record at offset 1");
    log.skipped("record at offset 2");
    now.addAndGet(29_999);
    log.skipped("record at offset 3");
    now.addAndGet(1);
    log.skipped("record at offset 4");
    log.skipped("record at offset 5");
    now.addAndGet(30_000);
    log.skipped("record at offset 6");

    assertThat(events).allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(Level.WARN));
    assertThat(events.stream().map(BadRecordHandlerTest::text).toList())
        .satisfiesExactly(
            first ->
                assertThat(first)
                    .startsWith("record at offset 1 (skipped: errors.tolerance=all")
                    .doesNotContain("more bad records"),
            second ->
                assertThat(second)
                    .startsWith("record at offset 4 ")
                    .contains("2 more bad records were skipped since the last such line"),
            third ->
                assertThat(third)
                    .startsWith("record at offset 6 ")
                    .contains("1 more bad records were skipped"));
  }

  private static String text(SubstituteLoggingEvent e) {
    return MessageFormatter.arrayFormat(e.getMessage(), e.getArgumentArray()).getMessage();
  }
}
