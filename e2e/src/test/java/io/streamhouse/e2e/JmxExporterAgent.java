package io.streamhouse.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Worker JVM flags that run jmx_prometheus_javaagent 1.0.1 with the shipped rules on a port. */
final class JmxExporterAgent {
  private JmxExporterAgent() {}

  static List<String> workerFlags(int port) throws Exception {
    Path lib =
        MavenArtifacts.resolve(
            E2eSettings.workDir().resolve("kafka-dists"),
            "jmx-prometheus-javaagent-1.0.1",
            E2eSettings.mavenCmd(),
            List.of("io.prometheus.jmx:jmx_prometheus_javaagent:1.0.1"));
    Path agent;
    try (Stream<Path> jars = Files.list(lib)) {
      agent =
          jars.filter(p -> p.getFileName().toString().startsWith("jmx_prometheus_javaagent"))
              .findFirst()
              .orElseThrow();
    }
    Path rules = E2eSettings.repoRoot().resolve("docker/jmx-exporter/streamhouse-connect.yml");
    List<String> flags = new ArrayList<>(ConnectWorker.DEFAULT_JVM_FLAGS);
    flags.add("-javaagent:" + agent + "=127.0.0.1:" + port + ":" + rules);
    return flags;
  }
}
