package io.streamhouse.connect.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamhouse.connect.table.FileBudget;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FairLockProfileTest {
  private static boolean profileThreadsAlive() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().startsWith("streamhouse-fair-lock-profile-") && t.isAlive());
  }

  @Test
  void theFirstTaskStateOfTheJvmStartsTheTwoThreadsOnceAndTheyEnd() {
    new TaskState("c", 0, Map.of(), new FileBudget(1, 1L << 20));
    assertThat(FairLockProfile.startOnce()).as("a task state started them already").isFalse();
    await().atMost(Duration.ofSeconds(30)).until(() -> !profileThreadsAlive());
    new TaskState("c", 1, Map.of(), new FileBudget(1, 1L << 20));
    assertThat(profileThreadsAlive()).as("no second start").isFalse();
  }
}
