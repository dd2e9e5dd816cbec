package io.streamhouse.connect.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shared retry: which failures run the attempt again, how often, and what ends it. */
class RetriesTest {
  private static final class Lost extends Exception {
    private static final long serialVersionUID = 1L;

    Lost(int attempt) {
      super("lost attempt " + attempt);
    }
  }

  @Test
  void anAttemptRunsAgainAfterEachFailureToRetryUntilItGivesItsResult() throws Lost {
    List<Integer> attempts = new ArrayList<>();
    String result =
        Retries.immediately(
            5,
            Lost.class,
            n -> {
              attempts.add(n);
              if (n < 3) {
                throw new Lost(n);
              }
              return "done in " + n;
            });
    assertThat(result).isEqualTo("done in 3");
    assertThat(attempts).containsExactly(1, 2, 3);
  }

  @Test
  void whenTheAttemptsRunOutTheLastFailureIsThrown() {
    List<Integer> attempts = new ArrayList<>();
    assertThatThrownBy(
            () ->
                Retries.immediately(
                    4,
                    Lost.class,
                    n -> {
                      attempts.add(n);
                      throw new Lost(n);
                    }))
        .isInstanceOf(Lost.class)
        .hasMessage("lost attempt 4");
    assertThat(attempts).containsExactly(1, 2, 3, 4);
  }

  @Test
  void anyOtherFailureEndsItAtOnce() {
    List<Integer> attempts = new ArrayList<>();
    assertThatThrownBy(
            () ->
                Retries.immediately(
                    4,
                    Lost.class,
                    n -> {
                      attempts.add(n);
                      throw new IllegalStateException("broken");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("broken");
    assertThat(attempts).containsExactly(1);
  }

  @Test
  void withBackoffRetriesAfterAWaitTheSameWay() {
    List<Integer> attempts = new ArrayList<>();
    Integer result =
        Retries.withBackoff(
            3,
            1,
            2,
            IllegalStateException.class,
            n -> {
              attempts.add(n);
              if (n < 3) {
                throw new IllegalStateException("unavailable");
              }
              return n;
            });
    assertThat(result).isEqualTo(3);
    assertThat(attempts).containsExactly(1, 2, 3);
  }
}
