package io.streamhouse.connect.commit.coordinator;

import io.streamhouse.connect.commit.wire.ControlEvent;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A {@link Coordinator}'s number and the later coordinators of its connector it heard: a
 * coordinator that heard a later one lately stands down (a task 0 that was frozen or cut off and
 * has been started again elsewhere), so that two coordinators never commit to one table at once.
 */
final class LaterCoordinators {
  /**
   * This coordinator's number: its start time in milliseconds times 1,000, plus a random tiebreak
   * below 1,000. A later coordinator of the connector has a larger one (clocks of the workers in
   * step to within the time between two coordinator starts, seconds).
   */
  private final long number;

  /** The largest number of another coordinator heard, and when it was last heard. */
  private long laterNumber;

  private long laterHeardAt = Long.MIN_VALUE / 2;

  /**
   * How long after it last heard a later coordinator this one stands down: that one sends a request
   * at least every interval while it lives (and every second while a round waits).
   */
  private final long standDownMs;

  LaterCoordinators(long startedAt, long standDownMs) {
    this.number = startedAt * 1_000 + ThreadLocalRandom.current().nextInt(1_000);
    this.standDownMs = standDownMs;
  }

  /** This coordinator's number, which its requests carry. */
  long number() {
    return number;
  }

  /** The largest number of a later coordinator heard, 0 if none. */
  long latest() {
    return laterNumber;
  }

  long standDownMs() {
    return standDownMs;
  }

  /** A request of a coordinator, maybe another one of this connector: a later one is noted. */
  void heard(ControlEvent.StartCommit start, long now) {
    if (start.coordinator() > number) {
      laterNumber = Math.max(laterNumber, start.coordinator());
      laterHeardAt = now;
    }
  }

  /** Whether a later coordinator was heard within {@link #standDownMs} before {@code now}. */
  boolean heardWithin(long now) {
    return now - laterHeardAt < standDownMs;
  }
}
