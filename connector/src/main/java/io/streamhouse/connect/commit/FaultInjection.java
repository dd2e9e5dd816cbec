package io.streamhouse.connect.commit;

import io.streamhouse.connect.config.SinkConfigValidator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Test-only, and only on a worker JVM started with {@code -Dstreamhouse.fault-injection=enabled}:
 * halts the worker JVM (exit 137, as kill -9 would, no shutdown hooks) the first time the commit
 * protocol reaches a named point. Configured as {@code streamhouse.test.halt-at=
 * POINT:/path/marker}; the marker file makes it fire once, so the restarted worker goes on. With
 * {@code stall-POINT:/path/marker} the thread that reached the point sleeps {@link #STALL} instead
 * (after creating the marker), so a test can freeze the worker exactly there. With {@code
 * delay-POINT:millis} the thread sleeps that long every time it reaches the point (no marker): a
 * task or coordinator that is alive but slow there, round after round; {@code delay-POINT@N:millis}
 * slows task {@code N} alone.
 */
public final class FaultInjection {
  /** The points a test can halt at. */
  public enum Point {
    /** A task received StartCommit and has not prepared its writers. */
    BEFORE_PREPARE,
    /** A task closes the files it took out of its writers for a round (off the writers' lock). */
    FLUSH,
    /** The coordinator has every batch of a round and has not committed any table. */
    BEFORE_TABLE_COMMIT,
    /** A table commit succeeded; no task has heard of it, so no consumer offset moved. */
    AFTER_TABLE_COMMIT,
    /** A snapshot expiry is committed; the files it frees are not deleted yet. */
    AFTER_EXPIRY_COMMIT,
    /** A compaction group's files are written; the rewrite is not committed yet. */
    BEFORE_REWRITE_COMMIT
  }

  static final Duration STALL = Duration.ofSeconds(20);
  private static final Logger LOG = LoggerFactory.getLogger(FaultInjection.class);
  private final Point point;
  private final Path marker;
  private final boolean stall;
  private final long delayMs;

  private FaultInjection(Point point, Path marker, boolean stall, long delayMs) {
    this.point = point;
    this.marker = marker;
    this.stall = stall;
    this.delayMs = delayMs;
  }

  /** No fault injection. */
  public static FaultInjection none() {
    return new FaultInjection(null, null, false, 0);
  }

  /**
   * The fault injection {@code setting} arms in every task.
   *
   * @throws org.apache.kafka.common.config.ConfigException if it is set and this worker JVM was not
   *     started with fault injection allowed
   */
  public static FaultInjection parse(String setting) {
    return parse(setting, -1);
  }

  /**
   * The fault injection {@code setting} arms in task {@code taskId}: none if the setting names
   * another task.
   *
   * @throws org.apache.kafka.common.config.ConfigException if it is set and this worker JVM was not
   *     started with fault injection allowed
   */
  public static FaultInjection parse(String setting, int taskId) {
    if (setting == null || setting.isBlank()) {
      return none();
    }
    if (!SinkConfigValidator.faultInjectionAllowed()) {
      throw new ConfigException(SinkConfigValidator.faultInjectionRefusal());
    }
    int colon = setting.indexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("streamhouse.test.halt-at must be POINT:/path/marker");
    }
    String name = setting.substring(0, colon).trim().toUpperCase(Locale.ROOT);
    String argument = setting.substring(colon + 1).trim();
    int at = name.indexOf('@');
    if (at >= 0) {
      if (taskId >= 0 && Integer.parseInt(name.substring(at + 1)) != taskId) {
        return none();
      }
      name = name.substring(0, at);
    }
    if (name.startsWith("DELAY-")) {
      return new FaultInjection(point(name.substring(6)), null, false, Long.parseLong(argument));
    }
    boolean stall = name.startsWith("STALL-");
    return new FaultInjection(point(stall ? name.substring(6) : name), Path.of(argument), stall, 0);
  }

  private static Point point(String name) {
    return Point.valueOf(name.replace('-', '_'));
  }

  public void at(Point reached) {
    if (reached != point) {
      return;
    }
    if (delayMs > 0) {
      LOG.warn(
          "FAULT INJECTION: {} waits {} ms at {}",
          Thread.currentThread().getName(),
          delayMs,
          reached);
      try {
        Thread.sleep(delayMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
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
