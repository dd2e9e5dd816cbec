package io.streamhouse.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * One artifact from Maven Central without its dependencies ({@code dependency:copy}), copied into
 * {@code cacheRoot/NAME/} once and reused afterwards. For executable jars that carry everything
 * they need: {@link MavenClasspath}'s {@code copy-dependencies} would resolve the artifact's pom,
 * and Nessie's server pom names modules Maven Central does not serve (nessie-quarkus-auth and
 * others), so it fails. Downloaded once into the cache ({@link CacheFolder}).
 */
final class MavenJar {
  private static final String COPY_GOAL =
      "org.apache.maven.plugins:maven-dependency-plugin:3.9.0:copy";

  private MavenJar() {}

  /**
   * Resolves {@code group:artifact:version:type:classifier} (Maven's {@code -Dartifact} form);
   * returns the jar.
   */
  static Path resolve(Path cacheRoot, String name, String mavenCmd, String artifact) {
    try {
      Path complete =
          CacheFolder.filledOnce(
              cacheRoot, name, (home, marker) -> download(home, mavenCmd, artifact, marker));
      return complete
          .getParent()
          .resolve(Files.readString(complete, StandardCharsets.UTF_8).strip());
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot resolve " + artifact + " into " + cacheRoot.resolve(name), e);
    }
  }

  private static void download(Path home, String mavenCmd, String artifact, Path complete)
      throws IOException {
    Path lib = home.resolve("lib");
    // Online on purpose: the build may run offline (-o) while the jar is not in ~/.m2 yet.
    ManagedProcess.run(
        "resolve-" + home.getFileName(),
        List.of(
            mavenCmd,
            "-q",
            "-B",
            COPY_GOAL,
            "-Dartifact=" + artifact,
            "-DoutputDirectory=" + lib,
            "-Dmdep.overWriteReleases=true"),
        home,
        home.resolve("resolve.log"),
        Duration.ofMinutes(15));
    try (var files = Files.list(lib)) {
      List<Path> jars = files.filter(f -> f.toString().endsWith(".jar")).toList();
      if (jars.size() != 1) {
        throw new IllegalStateException(
            "Expected one jar in " + lib + " after resolving " + artifact + ", found " + jars);
      }
      // The marker names the jar, relative to home, so a later run needs no listing.
      Files.writeString(complete, home.relativize(jars.get(0)).toString(), StandardCharsets.UTF_8);
    }
  }
}
