package io.streamhouse.e2e;

import java.nio.file.Path;
import java.util.List;

/**
 * The jars of one Apache Kafka version (broker, Connect runtime, a log binding), resolved from
 * Maven Central with Maven itself into {@code cacheRoot/kafka-VERSION/lib} and reused afterwards.
 * No Kafka test jars are involved: the broker and the worker run from the published artifacts.
 */
public final class KafkaDistribution {
  private static final String LOG4J2_VERSION = "2.25.5";

  private final String version;
  private final Path libDir;

  private KafkaDistribution(String version, Path libDir) {
    this.version = version;
    this.libDir = libDir;
  }

  /** Resolves (once) and returns the distribution of {@code version}. */
  public static KafkaDistribution resolve(String version, Path cacheRoot, String mavenCmd) {
    List<String> artifacts =
        new java.util.ArrayList<>(
            List.of(
                "org.apache.kafka:kafka_2.13:" + version,
                "org.apache.kafka:connect-runtime:" + version,
                "org.apache.kafka:connect-json:" + version));
    artifacts.addAll(
        usesLog4j2(version)
            ? List.of(
                "org.apache.logging.log4j:log4j-slf4j-impl:" + LOG4J2_VERSION,
                "org.apache.logging.log4j:log4j-core:" + LOG4J2_VERSION)
            : List.of("org.slf4j:slf4j-reload4j:1.7.36", "ch.qos.reload4j:reload4j:1.2.25"));
    return new KafkaDistribution(
        version, MavenClasspath.resolve(cacheRoot, "kafka-" + version, mavenCmd, artifacts));
  }

  public String version() {
    return version;
  }

  /** A classpath with every jar of the distribution. */
  public String classpath() {
    return libDir + "/*";
  }

  public boolean usesLog4j2() {
    return usesLog4j2(version);
  }

  /** Kafka 4 logs through log4j2; Kafka 3 through reload4j (log4j 1 API). */
  private static boolean usesLog4j2(String version) {
    return Integer.parseInt(version.substring(0, version.indexOf('.'))) >= 4;
  }
}
