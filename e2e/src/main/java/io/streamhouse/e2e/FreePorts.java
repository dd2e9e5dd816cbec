package io.streamhouse.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Free TCP ports on the loopback interface, each handed out once per JVM: the kernel may give the
 * same ephemeral port to two probes in a row (seen: a broker's two listeners on one port).
 */
final class FreePorts {
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  private FreePorts() {}

  static int next() {
    for (int attempt = 0; attempt < 100; attempt++) {
      int port = probe();
      if (HANDED_OUT.add(port)) {
        return port;
      }
    }
    throw new IllegalStateException(
        "No loopback port that was not handed out already, after 100 probes");
  }

  private static int probe() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("No free loopback port", e);
    }
  }
}
