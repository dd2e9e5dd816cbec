package io.streamhouse.connect.commit.task;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a task cuts its batch ahead of the commit request it expects. */
class AnswerScheduleTest {
  /** Records per flush: the next flush holds as many as the last, unless a test says otherwise. */
  private static final long N = 1_000;

  private final AnswerSchedule schedule = new AnswerSchedule(10_000);

  @Test
  void nothingIsCutAheadBeforeTheFirstRequestTellsWhenRequestsCome() {
    assertThat(schedule.due(Long.MAX_VALUE - 1, N)).isFalse();
    assertThat(schedule.untilCutMs(0, N)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void theCutComesTheLastFlushAndAMarginBeforeTheNextRequestIsDue() {
    schedule.requested(1_000, true);
    schedule.flushed(2_000, 10, N);
    long cutAt = 1_000 + 10_000 - (3_000 + AnswerSchedule.MARGIN_MS);
    assertThat(schedule.due(cutAt - 1, N)).isFalse();
    assertThat(schedule.untilCutMs(cutAt - 100, N)).isEqualTo(100);
    assertThat(schedule.due(cutAt, N)).isTrue();
    assertThat(schedule.untilCutMs(cutAt + 5, N)).isZero();
  }

  @Test
  void oneCutPerRequestAndTheNextCountsFromTheNextRequest() {
    schedule.requested(0, true);
    schedule.flushed(1_000, 10, N);
    schedule.cutMade();
    assertThat(schedule.due(1_000_000, N)).as("the cut waits for its request").isFalse();
    assertThat(schedule.untilCutMs(0, N)).isEqualTo(Long.MAX_VALUE);

    schedule.requested(12_000, true); // the round came later than the interval
    schedule.flushed(300, 10, N);
    assertThat(schedule.due(12_000 + 10_000 - 700, N)).isTrue();
    assertThat(schedule.due(12_000 + 10_000 - 701, N)).isFalse();
  }

  @Test
  void aCutIsNeverMoreThanHalfAnIntervalEarly() {
    schedule.requested(0, true);
    schedule.flushed(60_000, 10, N); // a flush longer than the interval (a slow or stalled task)
    assertThat(schedule.leadMs(N)).isEqualTo(5_000);
    assertThat(schedule.due(4_999, N)).isFalse();
    assertThat(schedule.due(5_000, N)).isTrue();
  }

  @Test
  void aCutDueBeforeAnyRecordWasWrittenComesWithTheFirstRecord() {
    schedule.started(1_000);
    assertThat(schedule.due(6_000, 0)).as("nothing to cut yet").isFalse();
    assertThat(schedule.untilCutMs(6_000, 0)).isEqualTo(Long.MAX_VALUE);
    assertThat(schedule.due(8_000, 1))
        .as("the first record arrived after the cut was due")
        .isTrue();
    assertThat(schedule.untilCutMs(8_000, 1)).isZero();
  }

  @Test
  void aRequestWithinHalfAnIntervalOfTheLastIsUnscheduled() {
    schedule.started(0);
    assertThat(schedule.unscheduled(1)).as("the rounds' phase is not known yet").isFalse();
    schedule.requested(1_000, true);
    assertThat(schedule.unscheduled(5_999)).isTrue();
    assertThat(schedule.unscheduled(6_000)).isFalse();
    AnswerSchedule off = new AnswerSchedule(0);
    off.requested(1_000, true);
    assertThat(off.unscheduled(1_001)).as("cutting ahead off").isFalse();
  }

  /**
   * A hand-over's round late in the interval: another task's request for it was read, so the next
   * request is that round, answered without taking the writers' records out; but only within an
   * interval of the last request that took them out, so that tasks restarting again and again do
   * not hold them back.
   */
  @Test
  void aRequestAfterAnotherTasksHandOverRequestIsUnscheduledWithinAnIntervalOfTheLastTaken() {
    schedule.requested(0, true);
    assertThat(schedule.unscheduled(7_000)).as("a regular round, later than half").isFalse();
    schedule.handOverRequested();
    assertThat(schedule.unscheduled(7_000)).isTrue();
    schedule.requested(7_000, false);
    assertThat(schedule.unscheduled(12_000)).as("the request was that round").isFalse();

    schedule.handOverRequested();
    assertThat(schedule.unscheduled(12_500))
        .as("an interval after the last request that took the records out")
        .isFalse();

    schedule.requested(20_000, true);
    schedule.handOverRequested();
    schedule.repeated(); // the round in progress took the hand-over
    assertThat(schedule.unscheduled(27_000)).isFalse();
  }

  @Test
  void aShortFlushIsDoneAtTheRequest() {
    schedule.requested(0, true);
    schedule.flushed(AnswerSchedule.MIN_FLUSH_MS - 1, 10, N);
    assertThat(schedule.due(9_999, N)).isFalse();
    assertThat(schedule.untilCutMs(0, N)).isEqualTo(Long.MAX_VALUE);
    schedule.flushed(AnswerSchedule.MIN_FLUSH_MS, 10, N);
    assertThat(schedule.due(9_999, N)).isTrue();
  }

  @Test
  void theFirstRequestIsExpectedAnIntervalAfterTheStartAndCutHalfAnIntervalBefore() {
    schedule.started(1_000);
    assertThat(schedule.due(5_999, N)).isFalse();
    assertThat(schedule.untilCutMs(1_000, N)).isEqualTo(5_000);
    assertThat(schedule.due(6_000, N)).as("no flush measured yet: half an interval early").isTrue();
    schedule.cutMade();
    assertThat(schedule.due(100_000, N)).isFalse();

    schedule.requested(11_500, true);
    schedule.flushed(AnswerSchedule.MIN_FLUSH_MS - 1, 10, N);
    assertThat(schedule.untilCutMs(11_500, N))
        .as("from then on the measured flushes decide: a short one is done at the request")
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void theNextFlushIsPredictedFromTheTimePerRecordAndTheRecordsWrittenSinceTheCut() {
    schedule.requested(0, true);
    schedule.flushed(1_000, 200, 10_000); // 0.1 ms per record
    assertThat(schedule.due(9_999, 1_000)).as("100 ms predicted: done at the request").isFalse();
    assertThat(schedule.leadMs(20_000)).isEqualTo(3_000 + AnswerSchedule.MARGIN_MS);
    assertThat(schedule.due(10_000 - 3_250, 20_000)).isTrue();
    assertThat(schedule.due(10_000 - 3_251, 20_000)).isFalse();

    // After a start: 40 records in 270 ms (mostly the time per file) predict 4 s for 600: early.
    schedule.requested(10_000, true);
    schedule.flushed(270, 38, 40);
    assertThat(schedule.leadMs(600)).isEqualTo(5_000);
  }

  @Test
  void aFlushThatClosedNoFileIsNotCounted() {
    schedule.started(0);
    schedule.requested(500, true); // a hand-over's round right after the start: nothing written yet
    schedule.flushed(3, 0, N);
    assertThat(schedule.untilCutMs(500, N)).as("still half an interval ahead").isEqualTo(5_000);
    schedule.cutMade();
    schedule.requested(10_500, true);
    schedule.flushed(2_000, 200, N);
    schedule.requested(20_500, true);
    schedule.flushed(1, 0, N);
    assertThat(schedule.leadMs(N)).as("the last flush that closed files").isEqualTo(3_250);
  }

  @Test
  void aRequestBeforeTheExpectedOneSetsTheScheduleAndAStartAfterItChangesNothing() {
    schedule.requested(3_000, true);
    schedule.started(4_000);
    assertThat(schedule.untilCutMs(3_000, N)).isEqualTo(10_000 - 5_000);
  }

  @Test
  void withoutAnIntervalNothingIsEverCutAhead() {
    AnswerSchedule off = new AnswerSchedule(0);
    off.started(0);
    assertThat(off.due(Long.MAX_VALUE - 1, N)).isFalse();
    off.requested(0, true);
    off.flushed(1_000, 10, N);
    assertThat(off.due(Long.MAX_VALUE - 1, N)).isFalse();
    assertThat(off.untilCutMs(0, N)).isEqualTo(Long.MAX_VALUE);
  }
}
