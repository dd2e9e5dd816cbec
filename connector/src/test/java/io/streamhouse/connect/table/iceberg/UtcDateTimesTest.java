package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The date of the last day is kept; every instant still gets the JDK's UTC date and time. */
class UtcDateTimesTest {
  private final UtcDateTimes times = new UtcDateTimes();

  @Test
  void everyInstantGetsTheDateAndTimeTheJdkGives() {
    List<Instant> instants = new ArrayList<>();
    instants.add(Instant.EPOCH);
    instants.add(Instant.EPOCH.minusNanos(1)); // the last nanosecond before the epoch: day -1
    instants.add(Instant.parse("2026-12-05T23:59:59.999999999Z"));
    instants.add(Instant.parse("2026-12-06T00:00:00Z")); // the next day right after
    instants.add(Instant.parse("2026-12-05T12:00:00.5Z")); // and back
    instants.add(Instant.parse("1969-07-20T20:17:40Z"));
    instants.add(Instant.parse("+999999999-12-31T23:59:59.999999999Z")); // LocalDateTime.MAX
    instants.add(Instant.parse("-999999999-01-01T00:00:00Z")); // LocalDateTime.MIN
    Random random = new Random(42);
    for (int i = 0; i < 10_000; i++) {
      // runs on one day and jumps between days, centuries apart and seconds apart
      long base = random.nextInt(3) == 0 ? random.nextLong(-62_000_000_000L, 250_000_000_000L) : 0;
      instants.add(
          Instant.ofEpochSecond(
              1_796_000_000L + base + random.nextInt(200_000), random.nextInt(1_000_000_000)));
    }
    for (Instant instant : instants) {
      assertThat(times.of(instant))
          .as("%s", instant)
          .isEqualTo(
              LocalDateTime.ofEpochSecond(
                  instant.getEpochSecond(), instant.getNano(), ZoneOffset.UTC));
    }
  }

  @Test
  void aDayOutOfRangeFailsAsTheJdkDoesAndKeepsTheDayBefore() {
    Instant day = Instant.parse("2026-12-05T10:00:00Z");
    assertThat(times.of(day)).isEqualTo(LocalDateTime.parse("2026-12-05T10:00:00"));
    // Instant.MIN lies in the year -1,000,000,000, before LocalDate.MIN
    assertThatThrownBy(
            () -> LocalDateTime.ofEpochSecond(Instant.MIN.getEpochSecond(), 0, ZoneOffset.UTC))
        .isInstanceOf(DateTimeException.class);
    assertThatThrownBy(() -> times.of(Instant.MIN)).isInstanceOf(DateTimeException.class);
    assertThat(times.of(day.plusSeconds(1))).isEqualTo(LocalDateTime.parse("2026-12-05T10:00:01"));
    assertThat(times.of(Instant.MIN.plusSeconds(400L * 366 * 86_400)))
        .isEqualTo(
            LocalDateTime.ofEpochSecond(
                Instant.MIN.getEpochSecond() + 400L * 366 * 86_400, 0, ZoneOffset.UTC));
  }
}
