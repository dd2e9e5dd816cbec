package io.streamhouse.connect.commit.task;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** How long a hand-over waits for the coordinator, from the setting and the last round. */
class HandOverWaitTest {
  private final HandOverWait wait = new HandOverWait();

  @Test
  void beforeAnyRoundTheSettingHolds() {
    assertThat(wait.timeoutMs(4_000)).isEqualTo(4_000);
    assertThat(wait.timeoutMs(0)).as("hand-overs off").isZero();
  }

  @Test
  void aLongRoundLengthensTheWaitToTwiceItsTimeButNotPastTheWorkersGracefulStop() {
    round(1, 2_100);
    assertThat(wait.lastRoundMs()).isEqualTo(2_100);
    assertThat(wait.timeoutMs(4_000)).isEqualTo(4_200);
    round(2, 5_000);
    assertThat(wait.timeoutMs(4_000)).isEqualTo(HandOverWait.CAP_MS);
    assertThat(wait.timeoutMs(10_000))
        .as("a setting above the cap: its owner raised the worker's graceful stop")
        .isEqualTo(10_000);
    round(3, 800);
    assertThat(wait.timeoutMs(4_000)).as("a short round: the setting").isEqualTo(4_000);
  }

  @Test
  void onlyTheFirstDecisionOfTheRoundLastRequestedEndsIt() {
    wait.requested(5, 0);
    wait.decided(4, ms(9_000)); // a decision of an older round
    assertThat(wait.lastRoundMs()).isZero();
    wait.decided(5, ms(2_000));
    wait.decided(5, ms(3_000)); // a later table of the same round
    assertThat(wait.lastRoundMs()).isEqualTo(2_000);
  }

  private void round(long commitId, long ms) {
    wait.requested(commitId, ms(100_000 * commitId));
    wait.decided(commitId, ms(100_000 * commitId + ms));
  }

  private static long ms(long ms) {
    return TimeUnit.MILLISECONDS.toNanos(ms);
  }
}
