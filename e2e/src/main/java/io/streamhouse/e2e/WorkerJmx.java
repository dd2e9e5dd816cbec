package io.streamhouse.e2e;

import com.sun.tools.attach.VirtualMachine;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import javax.management.AttributeNotFoundException;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Reads a worker's MBeans through the JDK attach API (a local management agent in the worker JVM,
 * no JMX port to configure): the same MBeans a JMX exporter or any JMX console sees.
 */
public final class WorkerJmx implements AutoCloseable {
  private final JMXConnector connector;
  private final MBeanServerConnection server;

  public WorkerJmx(long pid) {
    try {
      VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
      try {
        connector = JMXConnectorFactory.connect(new JMXServiceURL(vm.startLocalManagementAgent()));
      } finally {
        vm.detach();
      }
      server = connector.getMBeanServerConnection();
    } catch (Exception e) {
      throw new IllegalStateException("cannot attach to the worker JVM " + pid, e);
    }
  }

  /**
   * The numeric attribute {@code attribute} of every MBean matching {@code pattern}, keyed by the
   * value of the {@code key} property of its name (for example the partition).
   */
  public Map<String, Double> values(String pattern, String key, String attribute) {
    Map<String, Double> values = new HashMap<>();
    try {
      Set<ObjectName> names = server.queryNames(new ObjectName(pattern), null);
      for (ObjectName name : names) {
        Object v = server.getAttribute(name, attribute);
        if (v instanceof Number n) {
          values.put(name.getKeyProperty(key), n.doubleValue());
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot read " + attribute + " of " + pattern, e);
    }
    return values;
  }

  /**
   * The numeric attribute {@code attribute} of every MBean matching {@code pattern} that has it (a
   * Kafka metric's attribute appears with its first value), by name.
   */
  public Map<ObjectName, Double> valuesByName(String pattern, String attribute) {
    Map<ObjectName, Double> values = new HashMap<>();
    try {
      for (ObjectName name : server.queryNames(new ObjectName(pattern), null)) {
        try {
          if (server.getAttribute(name, attribute) instanceof Number n) {
            values.put(name, n.doubleValue());
          }
        } catch (AttributeNotFoundException | InstanceNotFoundException notYetOrGone) {
          // no value yet, or the MBean went away since the query (a consumer closed)
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot read " + attribute + " of " + pattern, e);
    }
    return values;
  }

  /** The names of the MBeans matching {@code pattern}. */
  public Set<ObjectName> names(String pattern) {
    try {
      return server.queryNames(new ObjectName(pattern), null);
    } catch (Exception e) {
      throw new IllegalStateException("cannot query the MBeans " + pattern, e);
    }
  }

  /** Bytes of heap in use now ({@code java.lang:type=Memory} HeapMemoryUsage.used). */
  public long heapUsed() {
    try {
      Object usage =
          server.getAttribute(new ObjectName("java.lang:type=Memory"), "HeapMemoryUsage");
      return ((Number) ((javax.management.openmbean.CompositeData) usage).get("used")).longValue();
    } catch (Exception e) {
      throw new IllegalStateException("cannot read the worker's heap usage", e);
    }
  }

  /**
   * Bytes of heap in use right after the worker's last garbage collection (the heap pools of the
   * collectors' LastGcInfo): what it holds, without the garbage that "used" also counts. 0 before
   * the first collection.
   */
  public long heapAfterGc() {
    long latestStart = -1;
    long used = 0;
    try {
      for (ObjectName gc :
          server.queryNames(new ObjectName("java.lang:type=GarbageCollector,*"), null)) {
        Object info = server.getAttribute(gc, "LastGcInfo");
        if (!(info instanceof javax.management.openmbean.CompositeData data)) {
          continue;
        }
        long start = ((Number) data.get("startTime")).longValue();
        if (start < latestStart) {
          continue;
        }
        latestStart = start;
        used = 0;
        javax.management.openmbean.TabularData after =
            (javax.management.openmbean.TabularData) data.get("memoryUsageAfterGc");
        for (Object row : after.values()) {
          javax.management.openmbean.CompositeData entry =
              (javax.management.openmbean.CompositeData) row;
          String pool = String.valueOf(entry.get("key"));
          if (pool.contains("Eden")
              || pool.contains("Survivor")
              || pool.contains("Old")
              || pool.contains("Tenured")) {
            used +=
                ((Number)
                        ((javax.management.openmbean.CompositeData) entry.get("value")).get("used"))
                    .longValue();
          }
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot read the worker's garbage collections", e);
    }
    return used;
  }

  @Override
  public void close() {
    try {
      connector.close();
    } catch (Exception e) {
      // the worker may be gone already
    }
  }
}
