package io.streamhouse.connect.commit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Test-only: halts the worker JVM (exit 137, as kill -9 would, no shutdown hooks) the first time
 * the commit protocol reaches a named point. Configured as {@code streamhouse.test.halt-at=
 * POINT:/path/marker}; the marker file makes it fire once, so the restarted worker goes on.
 */
public final class FaultInjection {
  /** The points a test can halt at. */
  public enum Point {
    /** A task received StartCommit and has not prepared its writers. */
    BEFORE_PREPARE,
    /** The coordinator has every batch of a round and has not committed any table. */
    BEFORE_TABLE_COMMIT,
    /** A table commit succeeded; no task has heard of it, so no consumer offset moved. */
    AFTER_TABLE_COMMIT
  }

  private static final Logger LOG = LoggerFactory.getLogger(FaultInjection.class);
  private final Point point;
  private final Path marker;

  private FaultInjection(Point point, Path marker) {
    this.point = point;
    this.marker = marker;
  }

  public static FaultInjection parse(String setting) {
    if (setting == null || setting.isBlank()) {
      return new FaultInjection(null, null);
    }
    int colon = setting.indexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("streamhouse.test.halt-at must be POINT:/path/marker");
    }
    return new FaultInjection(Point.valueOf(setting.substring(0, colon).trim().toUpperCase(java.util.Locale.ROOT)
        .replace('-', '_')), Path.of(setting.substring(colon + 1).trim()));
  }

  public void at(Point reached) {
    if (reached != point) {
      return;
    }
    try {
      Files.createFile(marker);
    } catch (IOException alreadyFired) {
      return;
    }
    LOG.error("FAULT INJECTION: halting the worker JVM at {}", reached);
    Runtime.getRuntime().halt(137);
  }
}
