package io.streamhouse.connect.commit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Test-only, and only on a worker JVM started with {@code -Dstreamhouse.fault-injection=enabled}:
 * halts the worker JVM (exit 137, as kill -9 would, no shutdown hooks) the first time the commit
 * protocol reaches a named point. Configured as {@code streamhouse.test.halt-at=
 * POINT:/path/marker}; the marker file makes it fire once, so the restarted worker goes on. With
 * {@code stall-POINT:/path/marker} the thread that reached the point sleeps {@link #STALL} instead
 * (after creating the marker), so a test can freeze the worker exactly there.
 */
public final class FaultInjection {
  /** The points a test can halt at. */
  public enum Point {
    /** A task received StartCommit and has not prepared its writers. */
    BEFORE_PREPARE,
    /** The coordinator has every batch of a round and has not committed any table. */
    BEFORE_TABLE_COMMIT,
    /** A table commit succeeded; no task has heard of it, so no consumer offset moved. */
    AFTER_TABLE_COMMIT,
    /** A snapshot expiry is committed; the files it frees are not deleted yet. */
    AFTER_EXPIRY_COMMIT,
    /** A compaction group's files are written; the rewrite is not committed yet. */
    BEFORE_REWRITE_COMMIT
  }

  static final java.time.Duration STALL = java.time.Duration.ofSeconds(20);
  private static final Logger LOG = LoggerFactory.getLogger(FaultInjection.class);
  private final Point point;
  private final Path marker;
  private final boolean stall;

  private FaultInjection(Point point, Path marker, boolean stall) {
    this.point = point;
    this.marker = marker;
    this.stall = stall;
  }

  /** No fault injection. */
  public static FaultInjection none() {
    return new FaultInjection(null, null, false);
  }

  /**
   * The fault injection {@code setting} arms.
   *
   * @throws org.apache.kafka.common.config.ConfigException if it is set and this worker JVM was not
   *     started with fault injection allowed
   */
  public static FaultInjection parse(String setting) {
    if (setting == null || setting.isBlank()) {
      return none();
    }
    if (!io.streamhouse.connect.config.SinkConfigValidator.faultInjectionAllowed()) {
      throw new org.apache.kafka.common.config.ConfigException(
          io.streamhouse.connect.config.SinkConfigValidator.faultInjectionRefusal());
    }
    int colon = setting.indexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("streamhouse.test.halt-at must be POINT:/path/marker");
    }
    String name = setting.substring(0, colon).trim().toUpperCase(java.util.Locale.ROOT);
    boolean stall = name.startsWith("STALL-");
    return new FaultInjection(
        Point.valueOf((stall ? name.substring(6) : name).replace('-', '_')),
        Path.of(setting.substring(colon + 1).trim()),
        stall);
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
    if (stall) {
      LOG.error(
          "FAULT INJECTION: stalling {} for {} at {}",
          Thread.currentThread().getName(),
          STALL,
          reached);
      try {
        Thread.sleep(STALL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      LOG.error(
          "FAULT INJECTION: {} goes on after the stall at {}",
          Thread.currentThread().getName(),
          reached);
      return;
    }
    LOG.error("FAULT INJECTION: halting the worker JVM at {}", reached);
    Runtime.getRuntime().halt(137);
  }
}
