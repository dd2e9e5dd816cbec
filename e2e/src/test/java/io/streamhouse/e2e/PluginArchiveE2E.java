package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/** The Confluent-Hub-style archive and its unpacked twin hold the same, and only allowed, files. */
class PluginArchiveE2E {
  private static final List<String> BANNED_JAR_PREFIXES =
      List.of(
          "kafka-clients",
          "connect-api",
          "connect-json",
          "connect-runtime",
          "connect-transforms",
          "slf4j-",
          "log4j",
          "logback",
          "reload4j");

  private static Path zip() throws IOException {
    Path components = E2eSettings.repoRoot().resolve("connector/target/components");
    try (Stream<Path> files = Files.list(components)) {
      List<Path> zips = files.filter(p -> p.toString().endsWith(".zip")).toList();
      assertThat(zips).hasSize(1);
      assertThat(zips.get(0).getFileName().toString())
          .matches("streamhouse-streamhouse-connect-.+\\.zip");
      return zips.get(0);
    }
  }

  @Test
  void theZipHasTheComponentLayoutAndNoWorkerProvidedJars() throws IOException {
    List<String> entries = new ArrayList<>();
    String root;
    try (ZipFile zip = new ZipFile(zip().toFile())) {
      zip.stream().filter(e -> !e.isDirectory()).forEach(e -> entries.add(e.getName()));
      root = entries.get(0).substring(0, entries.get(0).indexOf('/') + 1);
    }
    assertThat(root).startsWith("streamhouse-streamhouse-connect-");
    assertThat(entries).allSatisfy(e -> assertThat(e).startsWith(root));
    assertThat(entries)
        .contains(
            root + "manifest.json",
            root + "doc/configuration.md",
            root + "doc/README.md",
            root + "doc/LICENSE",
            root + "etc/quickstart.json");
    List<String> jars =
        entries.stream()
            .filter(e -> e.startsWith(root + "lib/"))
            .map(e -> e.substring((root + "lib/").length()))
            .toList();
    assertThat(jars).anySatisfy(j -> assertThat(j).matches("streamhouse-connect-.+\\.jar"));
    assertThat(jars.stream().filter(j -> BANNED_JAR_PREFIXES.stream().anyMatch(j::startsWith)))
        .as("jars the worker provides, or logging bindings, in lib/")
        .isEmpty();
  }

  @Test
  void theUnpackedPluginEqualsTheZip() throws IOException {
    List<String> fromZip = new ArrayList<>();
    try (ZipFile zip = new ZipFile(zip().toFile())) {
      zip.stream()
          .filter(e -> !e.isDirectory())
          .forEach(e -> fromZip.add(e.getName().substring(e.getName().indexOf('/') + 1)));
    }
    Path unpacked = E2eSettings.pluginPath().resolve("streamhouse-connect");
    List<String> fromDir = new ArrayList<>();
    try (Stream<Path> files = Files.walk(unpacked)) {
      files
          .filter(Files::isRegularFile)
          .forEach(f -> fromDir.add(unpacked.relativize(f).toString()));
    }
    Collections.sort(fromZip);
    Collections.sort(fromDir);
    assertThat(fromDir).isEqualTo(fromZip);
  }
}
