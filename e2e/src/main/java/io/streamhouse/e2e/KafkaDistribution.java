package io.streamhouse.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The jars of one Apache Kafka version (broker, Connect runtime, a log binding), resolved from
 * Maven Central with Maven itself into {@code cacheRoot/kafka-VERSION/lib} and reused afterwards.
 * No Kafka test jars are involved: the broker and the worker run from the published artifacts.
 */
public final class KafkaDistribution {
  private static final String DEPENDENCY_PLUGIN =
      "org.apache.maven.plugins:maven-dependency-plugin:3.9.0:copy-dependencies";
  private static final String LOG4J2_VERSION = "2.25.5";

  private final String version;
  private final Path libDir;

  private KafkaDistribution(String version, Path libDir) {
    this.version = version;
    this.libDir = libDir;
  }

  /** Resolves (once) and returns the distribution of {@code version}. */
  public static synchronized KafkaDistribution resolve(String version, Path cacheRoot, String mavenCmd) {
    Path home = cacheRoot.resolve("kafka-" + version).toAbsolutePath();
    Path lib = home.resolve("lib");
    Path complete = home.resolve(".complete");
    if (!Files.exists(complete)) {
      try {
        Files.createDirectories(home);
        Files.writeString(home.resolve("pom.xml"), pom(version), StandardCharsets.UTF_8);
        ManagedProcess.run("resolve-kafka-" + version,
            List.of(mavenCmd, "-q", "-B", "-f", home.resolve("pom.xml").toString(), DEPENDENCY_PLUGIN,
                "-DoutputDirectory=" + lib, "-DincludeScope=runtime"),
            home, home.resolve("resolve.log"), Duration.ofMinutes(10));
        Files.writeString(complete, version, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot resolve Kafka " + version + " into " + home, e);
      }
    }
    return new KafkaDistribution(version, lib);
  }

  public String version() {
    return version;
  }

  /** A classpath with every jar of the distribution. */
  public String classpath() {
    return libDir + "/*";
  }

  /** Kafka 4 logs through log4j2; Kafka 3 through reload4j (log4j 1 API). */
  public boolean usesLog4j2() {
    return majorVersion() >= 4;
  }

  int majorVersion() {
    return Integer.parseInt(version.substring(0, version.indexOf('.')));
  }

  private static String pom(String version) {
    boolean log4j2 = Integer.parseInt(version.substring(0, version.indexOf('.'))) >= 4;
    String logging = log4j2
        ? dependency("org.apache.logging.log4j", "log4j-slf4j-impl", LOG4J2_VERSION)
            + dependency("org.apache.logging.log4j", "log4j-core", LOG4J2_VERSION)
        : dependency("org.slf4j", "slf4j-reload4j", "1.7.36")
            + dependency("ch.qos.reload4j", "reload4j", "1.2.25");
    return """
        <?xml version="1.0" encoding="UTF-8"?>
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>io.streamhouse.e2e</groupId>
          <artifactId>kafka-distribution</artifactId>
          <version>%1$s</version>
          <packaging>pom</packaging>
          <dependencies>
        %2$s%3$s%4$s%5$s  </dependencies>
        </project>
        """.formatted(version,
        dependency("org.apache.kafka", "kafka_2.13", version),
        dependency("org.apache.kafka", "connect-runtime", version),
        dependency("org.apache.kafka", "connect-json", version),
        logging);
  }

  private static String dependency(String group, String artifact, String version) {
    return "    <dependency><groupId>" + group + "</groupId><artifactId>" + artifact
        + "</artifactId><version>" + version + "</version></dependency>\n";
  }
}
