package io.streamhouse.e2e;

import com.sun.tools.attach.VirtualMachine;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
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

  @Override
  public void close() {
    try {
      connector.close();
    } catch (Exception e) {
      // the worker may be gone already
    }
  }
}
