package io.streamhouse.e2e;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Settings the build hands to the e2e tests as system properties (see e2e/pom.xml). */
final class E2eSettings {
  private E2eSettings() {}

  static Path repoRoot() {
    return Path.of(System.getProperty("streamhouse.repo.root", "..")).toAbsolutePath().normalize();
  }

  static Path pluginPath() {
    return Path.of(
        System.getProperty(
            "streamhouse.plugin.path",
            repoRoot().resolve("connector/target/plugin-path").toString()));
  }

  static String kafkaVersion() {
    return System.getProperty("streamhouse.kafka.version", LocalStack.DEFAULT_KAFKA_VERSION);
  }

  static String mavenCmd() {
    return System.getProperty("streamhouse.maven.cmd", repoRoot().resolve("mvnw").toString());
  }

  static Path workDir() {
    return Path.of(
            System.getProperty(
                "streamhouse.work.dir", repoRoot().resolve("e2e/target/e2e-work").toString()))
        .toAbsolutePath();
  }

  /** A Nessie server that keeps its catalog in memory, in {@code stack}'s run folder. */
  static NessieServer nessieInMemory(LocalStack stack) {
    return NessieServer.start(
        stack.runDir().resolve("nessie"),
        workDir().resolve("kafka-dists"),
        mavenCmd(),
        NessieServer.Store.IN_MEMORY);
  }

  /**
   * config-examples/iceberg-nessie-atomic.json pointed at {@code stack}'s broker and at {@code
   * nessie} and its object store.
   */
  static ConnectorExample nessieExample(LocalStack stack, NessieServer nessie) {
    ConnectorExample example =
        ConnectorExample.load(repoRoot().resolve("config-examples/iceberg-nessie-atomic.json"));
    Map<String, String> config = new HashMap<>(example.config());
    config.put("kafka.bootstrap.servers", stack.bootstrapServers());
    config.put("catalog.lake.uri", nessie.icebergUri());
    config.put("catalog.lake.s3.endpoint", nessie.s3().endpoint());
    config.put("catalog.lake.s3.access-key-id", S3CompatibleServer.ACCESS_KEY_ID);
    config.put("catalog.lake.s3.secret-access-key", S3CompatibleServer.SECRET_ACCESS_KEY);
    return new ConnectorExample(example.name(), config);
  }

  /**
   * Stack settings for one test: its own run folder, the shared distribution cache, and workers
   * that allow the plugin's test-only fault injection.
   */
  static LocalStack.Settings stack(String runName, String kafkaVersion) {
    return LocalStack.settings()
        .kafkaVersion(kafkaVersion)
        .runDir(workDir().resolve(runName + "-" + System.currentTimeMillis()))
        .pluginPath(pluginPath())
        .distributionCache(workDir().resolve("kafka-dists"))
        .mavenCmd(mavenCmd())
        .faultInjection(true);
  }
}
