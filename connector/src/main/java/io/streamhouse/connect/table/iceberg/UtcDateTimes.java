package io.streamhouse.connect.table.iceberg;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;

/**
 * The UTC date and time of instants, as {@code LocalDateTime.ofEpochSecond(s, n, UTC)} gives them,
 * with the date of the last day asked for kept: the rows of a stream mostly fall on the day of the
 * row before, and {@code LocalDate.ofEpochDay} is the costly part (JFR of the 1M-record drain: 2.9
 * % of the task threads' samples). One per converter: not thread-safe.
 *
 * <p>The date is made again at a new day and every {@link #REMAKE_EVERY} instants, in one branch: a
 * branch taken only at a new day is one the JIT's profile never saw taken, and the first new day
 * threw the compiled converter away (JFR 2026-12-05 10:40, {@code unstable_if} in the drain's one
 * day change).
 */
final class UtcDateTimes {
  private static final long SECONDS_PER_DAY = 86_400;
  private static final long NANOS_PER_SECOND = 1_000_000_000L;
  private static final int REMAKE_EVERY = 1024;

  private long day = Long.MIN_VALUE;
  private LocalDate date;
  private int untilRemade;

  /**
   * A time on the hour, made with the date: {@code LocalTime.ofNanoOfDay} returns a constant for a
   * time on the hour, a branch that a stream of millisecond times takes once an hour or less, and
   * that the JIT's profile had not seen taken when it compiled the converter. The first record on
   * the hour then threw the compiled converter away (JFR 2026-12-05 20:14, {@code unstable_if} in
   * {@code LocalTime.create}, three fresh drains of four). Made every {@link #REMAKE_EVERY}
   * instants, the branch is one the profile has seen.
   */
  @SuppressWarnings("unused")
  private LocalTime hourProfiled;

  LocalDateTime of(Instant instant) {
    long seconds = instant.getEpochSecond();
    long epochDay = Math.floorDiv(seconds, SECONDS_PER_DAY);
    long differs = epochDay ^ day;
    // the sign bit of (x | -x) is set for any x but 0; that of --untilRemade once it is below 0
    if ((((differs | -differs) >>> 63) | (--untilRemade >>> 31)) != 0) {
      date = LocalDate.ofEpochDay(epochDay); // throws for a day out of range: nothing kept then
      day = epochDay;
      untilRemade = REMAKE_EVERY;
      hourProfiled = LocalTime.ofNanoOfDay(0);
    }
    long nanoOfDay = Math.floorMod(seconds, SECONDS_PER_DAY) * NANOS_PER_SECOND + instant.getNano();
    return LocalDateTime.of(date, LocalTime.ofNanoOfDay(nanoOfDay));
  }
}
