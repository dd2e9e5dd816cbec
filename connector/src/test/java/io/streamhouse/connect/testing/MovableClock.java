package io.streamhouse.connect.testing;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

/** A clock the test moves. */
public final class MovableClock extends Clock {
  private long millis = 1_000_000;

  public void advance(long ms) {
    millis += ms;
  }

  @Override
  public long millis() {
    return millis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis);
  }

  @Override
  public java.time.ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(java.time.ZoneId zone) {
    return this;
  }
}
