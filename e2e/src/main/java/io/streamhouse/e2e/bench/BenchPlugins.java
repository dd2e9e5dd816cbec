package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.MavenArtifacts;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/** Builds the plugin folders the benchmark compares our sink with. */
public final class BenchPlugins {
  static final String DISCARD_CONNECTOR = "io.streamhouse.e2e.bench.DiscardSinkConnector";

  private BenchPlugins() {}

  /**
   * {@code dir/discard-sink/lib/discard-sink.jar}: the do-nothing sink with its service manifest.
   */
  static void discardSink(Path pluginPath) {
    Path jar = pluginPath.resolve("discard-sink/lib/discard-sink.jar");
    try {
      Files.createDirectories(jar.getParent());
      try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
        // By name: the launcher has no Connect API on its classpath, so these classes are not
        // loaded here.
        for (String c : List.of(DISCARD_CONNECTOR, DISCARD_CONNECTOR + "$DiscardSinkTask")) {
          String name = c.replace('.', '/') + ".class";
          out.putNextEntry(new JarEntry(name));
          try (InputStream in = BenchPlugins.class.getClassLoader().getResourceAsStream(name)) {
            in.transferTo(out);
          }
          out.closeEntry();
        }
        out.putNextEntry(
            new JarEntry("META-INF/services/org.apache.kafka.connect.sink.SinkConnector"));
        out.write((DISCARD_CONNECTOR + "\n").getBytes(StandardCharsets.UTF_8));
        out.closeEntry();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Our plugin, copied from the build's unpacked archive. */
  public static void streamhouse(Path pluginPath, Path builtPlugin) {
    copyTree(builtPlugin, pluginPath.resolve("streamhouse-connect"));
  }

  /**
   * The Apache Iceberg Kafka Connect sink as users assemble it from Maven Central: the {@code
   * iceberg-kafka-connect} jar and its runtime dependencies, plus Parquet, the JDBC driver and the
   * Hadoop client; Kafka and slf4j jars are left to the worker.
   */
  public static void apacheIcebergSink(Path pluginPath, Path cacheRoot, String mavenCmd) {
    Path lib =
        MavenArtifacts.resolve(
            cacheRoot,
            "apache-iceberg-kafka-connect-1.12.0",
            mavenCmd,
            List.of(
                "org.apache.iceberg:iceberg-kafka-connect:1.12.0",
                "org.apache.iceberg:iceberg-parquet:1.12.0",
                "org.apache.iceberg:iceberg-data:1.12.0",
                "org.xerial:sqlite-jdbc:3.51.1.0",
                "org.apache.hadoop:hadoop-client-api:3.4.1",
                "org.apache.hadoop:hadoop-client-runtime:3.4.1"));
    Path target = pluginPath.resolve("apache-iceberg-sink/lib");
    try (Stream<Path> jars = Files.list(lib)) {
      Files.createDirectories(target);
      for (Path jar : jars.toList()) {
        String name = jar.getFileName().toString();
        if (name.startsWith("kafka-clients")
            || name.startsWith("connect-")
            || name.startsWith("slf4j")
            || name.startsWith("log4j")
            || name.startsWith("reload4j")) {
          continue;
        }
        Files.copy(jar, target.resolve(name), StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void copyTree(Path from, Path to) {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : files.toList()) {
        Path dest = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(dest);
        } else {
          Files.copy(f, dest, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void write(Path file, byte[] content) {
    try (OutputStream out = Files.newOutputStream(file)) {
      out.write(content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
