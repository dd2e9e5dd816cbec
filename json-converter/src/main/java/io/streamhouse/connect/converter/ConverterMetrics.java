package io.streamhouse.connect.converter;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A {@link FastJsonConverter}'s counts over JMX, on any Kafka version: the records it read and how
 * many of them it handed to {@code JsonConverter} (the first record of each schema, and every
 * record it does not decode with certainty). Registered as {@code
 * io.streamhouse.connect.converter:type=FastJsonConverter,id=N} while the converter is configured;
 * a share of fallbacks that stays high means records in a form the fast path does not read (see the
 * class comment of {@link FastJsonConverter}), read at {@code JsonConverter}'s speed.
 */
final class ConverterMetrics implements ConverterMetricsMXBean {
  private static final AtomicInteger IDS = new AtomicInteger();

  private volatile long records;
  private volatile long fallbacks;
  private ObjectName name;

  /** One more record read; single writer (the converter's thread). */
  void read() {
    records = records + 1;
  }

  /** One more record handed to JsonConverter; single writer (the converter's thread). */
  void fellBack() {
    fallbacks = fallbacks + 1;
  }

  @Override
  public long getRecords() {
    return records;
  }

  @Override
  public long getFallbacks() {
    return fallbacks;
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
