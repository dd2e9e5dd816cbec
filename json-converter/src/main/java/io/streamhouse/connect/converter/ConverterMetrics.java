package io.streamhouse.connect.converter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A {@link FastJsonConverter}'s count over JMX, on any Kafka version: how many records it handed to
 * {@code JsonConverter} (the first record of each schema, and every record it does not decode with
 * certainty). Registered as {@code io.streamhouse.connect.converter:type=FastJsonConverter,id=N}
 * while the converter is configured; a share of fallbacks that stays high means records in a form
 * the fast path does not read (see the class comment of {@link FastJsonConverter}), read at {@code
 * JsonConverter}'s speed.
 */
final class ConverterMetrics implements ConverterMetricsMXBean {
  private static final AtomicInteger IDS = new AtomicInteger();

  private static final VarHandle FALLBACKS;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      FALLBACKS = lookup.findVarHandle(ConverterMetrics.class, "fallbacks", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * Written by the converter's thread only, with opaque stores, read by JMX with opaque loads: a
   * count seen late by a fraction of a second, never torn. Records read are not counted: that would
   * put work on every record's path; Connect's own task metrics count them.
   */
  @SuppressWarnings("unused")
  private long fallbacks;

  private ObjectName name;

  /** One more record handed to JsonConverter; single writer (the converter's thread). */
  void fellBack() {
    FALLBACKS.setOpaque(this, (long) FALLBACKS.getOpaque(this) + 1);
  }

  @Override
  public long getFallbacks() {
    return (long) FALLBACKS.getOpaque(this);
  }

  /** Registers the counts under a new id; nothing when JMX refuses (the converter works on). */
  synchronized void register(String role) {
    unregister();
    try {
      ObjectName candidate =
          new ObjectName(
              "io.streamhouse.connect.converter:type=FastJsonConverter,role="
                  + role
                  + ",id="
                  + IDS.incrementAndGet());
      ManagementFactory.getPlatformMBeanServer().registerMBean(this, candidate);
      name = candidate;
    } catch (JMException | SecurityException e) {
      name = null;
    }
  }

  synchronized void unregister() {
    if (name == null) {
      return;
    }
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    try {
      server.unregisterMBean(name);
    } catch (JMException | SecurityException e) {
      // already gone
    }
    name = null;
  }

  /** The name it is registered under, or null. */
  synchronized ObjectName name() {
    return name;
  }
}
