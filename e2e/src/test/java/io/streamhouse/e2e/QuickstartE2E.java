package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The README's quickstart command, run as a user runs it: it works and stops cleanly. */
class QuickstartE2E {
  private final List<Process> started = new ArrayList<>();

  @Test
  void ctrlCStopsEveryProcess() throws Exception {
    Path runDir = E2eSettings.workDir().resolve("quickstart-ctrl-c-" + System.currentTimeMillis());
    Quickstart run = start(runDir);
    Map<String, Long> pids = readPids(runDir);
    assertThat(pids).containsOnlyKeys("launcher", "broker", "connect-0");
    assertThat(pids.values()).allSatisfy(pid -> assertThat(alive(pid)).isTrue());
    assertThat(run.output()).noneSatisfy(l -> assertThat(l).startsWith("Building"));
    assertThat(run.output())
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith("Iceberg table sales.orders (catalog: jdbc:sqlite:")
                    .endsWith("holds 1000 rows. A few of them:"));
    assertThat(run.output())
        .anySatisfy(
            l ->
                assertThat(l).startsWith("  streamhouse.quickstart-orders.watermarks = orders:0="));
    assertThat(run.output())
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith("Paimon table crm.customers (primary key id")
                    .matches(".* holds (\\d+) rows, the source table \\1\\. A few of them:"));
    assertThat(run.output())
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith(
                        "  streamhouse.quickstart-customers-cdc.watermarks = customers-cdc:"));

    signal("INT", run.process().pid()); // what Ctrl-C sends
    assertThat(run.process().waitFor(90, TimeUnit.SECONDS)).isTrue();
    assertThat(run.output()).contains("Stopped.");
    assertThat(pids.values()).allSatisfy(pid -> assertThat(alive(pid)).as("pid %d", pid).isFalse());
    assertThat(runDir.resolve("stack.pids")).doesNotExist();
  }

  @Test
  void downStopsAStackWhoseLauncherWasKilled() throws Exception {
    Path runDir = E2eSettings.workDir().resolve("quickstart-down-" + System.currentTimeMillis());
    Quickstart run = start(runDir);
    Map<String, Long> pids = readPids(runDir);

    signal("KILL", run.process().pid());
    assertThat(run.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(alive(pids.get("broker"))).isTrue();
    assertThat(alive(pids.get("connect-0"))).isTrue();

    Process down = script(runDir, "--down").redirectErrorStream(true).start();
    started.add(down);
    String out = new String(down.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(down.waitFor(90, TimeUnit.SECONDS)).isTrue();
    assertThat(down.exitValue()).as(out).isZero();
    assertThat(out).contains("Stopped 2 quickstart process(es)");
    assertThat(pids.values()).allSatisfy(pid -> assertThat(alive(pid)).as("pid %d", pid).isFalse());

    Process again = script(runDir, "--down").redirectErrorStream(true).start();
    started.add(again);
    assertThat(new String(again.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
        .contains("No quickstart stack is running");
  }

  private record Quickstart(Process process, Collection<String> output) {}

  private Quickstart start(Path runDir) throws IOException {
    Process process = script(runDir).redirectErrorStream(true).start();
    started.add(process);
    List<String> output = new CopyOnWriteArrayList<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  output.add(line);
                }
              } catch (IOException ignored) {
                // the process ended
              }
            },
            "quickstart-output");
    reader.setDaemon(true);
    reader.start();
    await()
        .atMost(Duration.ofMinutes(3))
        .failFast(
            () ->
                assertThat(process.isAlive())
                    .as(
                        "the quickstart is running; its output so far:%n%s",
                        String.join("\n", output))
                    .isTrue())
        .untilAsserted(
            () -> {
              assertThat(output)
                  .anySatisfy(
                      l -> assertThat(l).startsWith(io.streamhouse.e2e.Quickstart.READY_LINE));
            });
    return new Quickstart(process, output);
  }

  private static ProcessBuilder script(Path runDir, String... args) {
    List<String> cmd =
        new ArrayList<>(
            List.of("bash", E2eSettings.repoRoot().resolve("quickstart.sh").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(cmd).directory(E2eSettings.repoRoot().toFile());
    builder.environment().put("STREAMHOUSE_RUN_DIR", runDir.toString());
    builder.environment().put("STREAMHOUSE_KAFKA_VERSION", E2eSettings.kafkaVersion());
    return builder;
  }

  private static Map<String, Long> readPids(Path runDir) throws IOException {
    Map<String, Long> pids = new java.util.LinkedHashMap<>();
    for (String line : Files.readAllLines(runDir.resolve("stack.pids"))) {
      String[] parts = line.split(" ");
      pids.put(parts[0], Long.parseLong(parts[1]));
    }
    return pids;
  }

  private static boolean alive(long pid) {
    return Processes.isRunning(pid);
  }

  private static void signal(String signal, long pid) throws Exception {
    assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor())
        .isZero();
  }

  @AfterEach
  void stopLeftovers() {
    for (Process p : started) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }
}
