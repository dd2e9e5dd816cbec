package io.streamhouse.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A child process with its own log file. Every process started here is stopped on JVM exit too, so
 * a crashed test run leaves nothing behind.
 */
public final class ManagedProcess implements AutoCloseable {
  private static final Set<ManagedProcess> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  for (ManagedProcess p : List.copyOf(LIVE)) {
                    p.stop(Duration.ofSeconds(10));
                  }
                },
                "managed-process-reaper"));
  }

  private final String name;
  private final Process process;
  private final Path logFile;

  private ManagedProcess(String name, Process process, Path logFile) {
    this.name = name;
    this.process = process;
    this.logFile = logFile;
  }

  /** Starts {@code command} in {@code workDir}; stdout and stderr go to {@code logFile}. */
  public static ManagedProcess start(
      String name, List<String> command, Path workDir, Path logFile) {
    return start(name, command, workDir, logFile, java.util.Map.of());
  }

  /** The same, with extra environment variables. */
  public static ManagedProcess start(
      String name,
      List<String> command,
      Path workDir,
      Path logFile,
      java.util.Map<String, String> env) {
    try {
      Files.createDirectories(logFile.getParent());
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .directory(workDir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
      builder.environment().remove("KAFKA_OPTS");
      builder.environment().remove("JAVA_TOOL_OPTIONS");
      builder.environment().keySet().removeIf(k -> k.startsWith("CATALOG_"));
      builder.environment().putAll(env);
      ManagedProcess managed = new ManagedProcess(name, builder.start(), logFile);
      LIVE.add(managed);
      return managed;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start " + name + ": " + command, e);
    }
  }

  /** Runs {@code command} to completion and fails with its output if it exits non-zero. */
  public static void run(
      String name, List<String> command, Path workDir, Path logFile, Duration timeout) {
    ManagedProcess p = start(name, command, workDir, logFile);
    try {
      if (!p.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.stop(Duration.ofSeconds(5));
        throw new IllegalStateException(
            name + " did not finish within " + timeout + "\n" + p.logTail(40));
      }
      if (p.process.exitValue() != 0) {
        throw new IllegalStateException(
            name + " failed with exit code " + p.process.exitValue() + "\n" + p.logTail(40));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.stop(Duration.ofSeconds(5));
      throw new IllegalStateException("Interrupted while running " + name, e);
    } finally {
      LIVE.remove(p);
    }
  }

  public String name() {
    return name;
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public Path logFile() {
    return logFile;
  }

  /** Fails with the log tail if the process has died. */
  public void requireAlive() {
    if (!process.isAlive()) {
      throw new IllegalStateException(
          name
              + " (pid "
              + pid()
              + ") exited with code "
              + process.exitValue()
              + "; last lines of "
              + logFile
              + ":\n"
              + logTail(60));
    }
  }

  /** The last {@code lines} lines of the log file. */
  public String logTail(int lines) {
    return tail(logFile, lines);
  }

  static String tail(Path file, int lines) {
    try {
      if (!Files.exists(file)) {
        return "(no log file " + file + ")";
      }
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(cannot read " + file + ": " + e.getMessage() + ")";
    }
  }

  /** SIGTERM, then SIGKILL after {@code grace}; also kills any process the child started. */
  public void stop(Duration grace) {
    try {
      Processes.stopTree(process.toHandle(), grace);
    } finally {
      LIVE.remove(this);
    }
  }

  /** Sends a signal (STOP, CONT, INT, ...) with the system's kill command. */
  public void signal(String signal) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).inheritIO().start();
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Waits until the process has exited (for example after it halted itself). */
  public boolean awaitExit(Duration timeout) {
    try {
      boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (exited) {
        LIVE.remove(this);
      }
      return exited;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Sends SIGKILL at once: the crash a test wants to simulate. */
  public void kill() {
    process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    LIVE.remove(this);
  }

  @Override
  public void close() {
    stop(Duration.ofSeconds(15));
  }

  @Override
  public String toString() {
    return name + "(pid " + pid() + ")";
  }
}
