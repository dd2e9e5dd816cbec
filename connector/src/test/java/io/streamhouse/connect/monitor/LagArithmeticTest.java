package io.streamhouse.connect.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Lag against retention with a fixed clock. */
class LagArithmeticTest {
  static final long NOW = 1_800_000_000_000L;
  static final TopicRetention ONE_HOUR = TopicRetention.of("3600000", "-1", "delete");

  @Test
  void aCaughtUpSinkHasNoLagAndNoLossComing() {
    PartitionLag lag = LagArithmetic.of(100, 500, 500, -1, -1, ONE_HOUR, NOW);
    assertThat(lag.records()).isZero();
    assertThat(lag.seconds()).isZero();
    assertThat(lag.timeRatio()).isZero();
    assertThat(lag.secondsToLoss()).isInfinite();
    assertThat(lag.lostRecords()).isZero();
  }

  @Test
  void halfTheRetentionUsedLeavesHalfAnHourToLoss() {
    PartitionLag lag = LagArithmetic.of(100, 500, 300, NOW - 1_800_000, -1, ONE_HOUR, NOW);
    assertThat(lag.records()).isEqualTo(200);
    assertThat(lag.seconds()).isEqualTo(1800.0);
    assertThat(lag.timeRatio()).isCloseTo(0.5, within(1e-9));
    assertThat(lag.secondsToLoss()).isEqualTo(1800.0);
  }

  @Test
  void pastRetentionTheTimeToLossIsZeroAndTheRatioAboveOne() {
    PartitionLag lag = LagArithmetic.of(100, 500, 300, NOW - 4_000_000, -1, ONE_HOUR, NOW);
    assertThat(lag.timeRatio()).isGreaterThan(1);
    assertThat(lag.secondsToLoss()).isZero();
  }

  @Test
  void aLogStartPastTheCommittedOffsetIsLostDataAndTheLagCountsFromTheLogStart() {
    PartitionLag lag = LagArithmetic.of(350, 500, 300, NOW - 10_000, -1, ONE_HOUR, NOW);
    assertThat(lag.lostRecords()).isEqualTo(50);
    assertThat(lag.records()).isEqualTo(150);
  }

  @Test
  void infiniteRetentionAndCompactedTopicsNeverLoseByAge() {
    for (TopicRetention r :
        new TopicRetention[] {
          TopicRetention.of("-1", "-1", "delete"), TopicRetention.of("3600000", "-1", "compact")
        }) {
      PartitionLag lag = LagArithmetic.of(0, 500, 100, NOW - 86_400_000, -1, r, NOW);
      assertThat(lag.records()).isEqualTo(400);
      assertThat(lag.seconds()).isEqualTo(86_400.0);
      assertThat(lag.timeRatio()).isZero();
      assertThat(lag.secondsToLoss()).isInfinite();
    }
    // compact,delete still deletes by age.
    assertThat(
            LagArithmetic.of(
                    0,
                    500,
                    100,
                    NOW - 1_800_000,
                    -1,
                    TopicRetention.of("3600000", "-1", "compact,delete"),
                    NOW)
                .timeRatio())
        .isCloseTo(0.5, within(1e-9));
  }

  @Test
  void sizeRetentionUsesTheBytesBehind() {
    // 1000 records held in 1 MB, 250 behind: about 250 KB of a 500 KB retention.bytes.
    PartitionLag lag =
        LagArithmetic.of(
            0, 1000, 750, NOW - 1000, 1_000_000, TopicRetention.of("-1", "500000", "delete"), NOW);
    assertThat(lag.sizeRatio()).isCloseTo(0.5, within(1e-9));
    assertThat(lag.timeRatio()).isZero();
  }
}
