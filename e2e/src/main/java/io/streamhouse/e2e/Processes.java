package io.streamhouse.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Process liveness that treats a zombie as dead. A child whose parent was killed is re-parented to
 * PID 1, and not every init reaps promptly: {@link ProcessHandle#isAlive()} still says true for
 * such a zombie, although it runs nothing and holds no port.
 */
public final class Processes {
  private Processes() {}

  /** True if {@code pid} exists and is not a zombie. */
  public static boolean isRunning(long pid) {
    Path stat = Path.of("/proc", Long.toString(pid), "stat");
    if (!Files.exists(Path.of("/proc/self/stat"))) {
      return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
    try {
      String text = Files.readString(stat, StandardCharsets.UTF_8);
      // Format: pid (comm) state ... ; comm may contain spaces and parentheses.
      char state = text.charAt(text.lastIndexOf(')') + 2);
      return state != 'Z' && state != 'X';
    } catch (NoSuchFileException e) {
      return false;
    } catch (IOException | StringIndexOutOfBoundsException e) {
      return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
  }

  /** Stops a process and its descendants: SIGTERM, then SIGKILL after {@code grace}. */
  public static void stopTree(ProcessHandle handle, Duration grace) {
    List<ProcessHandle> all = new ArrayList<>(handle.descendants().toList());
    all.add(handle);
    all.forEach(ProcessHandle::destroy);
    awaitStopped(all, grace);
    List<ProcessHandle> survivors = all.stream().filter(h -> isRunning(h.pid())).toList();
    survivors.forEach(ProcessHandle::destroyForcibly);
    awaitStopped(survivors, Duration.ofSeconds(10));
  }

  private static void awaitStopped(List<ProcessHandle> handles, Duration timeout) {
    try {
      Wait.until(
          "processes " + handles.stream().map(ProcessHandle::pid).toList() + " to stop",
          timeout,
          Duration.ofMillis(100),
          () -> {},
          () -> handles.stream().noneMatch(h -> isRunning(h.pid())));
    } catch (IllegalStateException timedOut) {
      // the caller escalates to SIGKILL
    }
  }
}
