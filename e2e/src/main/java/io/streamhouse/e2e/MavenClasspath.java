package io.streamhouse.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The jars of a set of Maven artifacts and their dependencies, resolved from Maven Central by Maven
 * itself (a generated pom, {@code dependency:copy-dependencies}) into {@code cacheRoot/NAME/lib}
 * once ({@link CacheFolder}), and reused afterwards.
 */
final class MavenClasspath {
  private static final String DEPENDENCY_PLUGIN =
      "org.apache.maven.plugins:maven-dependency-plugin:3.9.0:copy-dependencies";

  private MavenClasspath() {}

  /**
   * Resolves {@code coordinates} ({@code group:artifact:version[:classifier]}); returns the lib
   * folder.
   */
  static synchronized Path resolve(
      Path cacheRoot, String name, String mavenCmd, List<String> coordinates) {
    try {
      Path complete =
          CacheFolder.filledOnce(
              cacheRoot,
              name,
              (home, marker) ->
                  download(home, home.resolve("lib"), marker, name, mavenCmd, coordinates));
      return complete.getParent().resolve("lib");
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot resolve " + coordinates + " into " + cacheRoot.resolve(name), e);
    }
  }

  private static void download(
      Path home, Path lib, Path complete, String name, String mavenCmd, List<String> coordinates)
      throws IOException {
    Files.writeString(home.resolve("pom.xml"), pom(name, coordinates), StandardCharsets.UTF_8);
    ManagedProcess.run(
        "resolve-" + name,
        List.of(
            mavenCmd,
            "-q",
            "-B",
            "-f",
            home.resolve("pom.xml").toString(),
            DEPENDENCY_PLUGIN,
            "-DoutputDirectory=" + lib,
            "-DincludeScope=runtime"),
        home,
        home.resolve("resolve.log"),
        Duration.ofMinutes(10));
    Files.writeString(complete, String.join("\n", coordinates), StandardCharsets.UTF_8);
  }

  private static String pom(String name, List<String> coordinates) {
    StringBuilder deps = new StringBuilder();
    for (String c : coordinates) {
      String[] p = c.split(":");
      deps.append("    <dependency><groupId>")
          .append(p[0])
          .append("</groupId><artifactId>")
          .append(p[1])
          .append("</artifactId><version>")
          .append(p[2])
          .append("</version>");
      if (p.length > 3) {
        deps.append("<classifier>").append(p[3]).append("</classifier>");
      }
      deps.append("</dependency>\n");
    }
    return """
        <?xml version="1.0" encoding="UTF-8"?>
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>io.streamhouse.e2e</groupId>
          <artifactId>%s</artifactId>
          <version>1</version>
          <packaging>pom</packaging>
          <dependencies>
        %s  </dependencies>
        </project>
        """
        .formatted(name.replaceAll("[^A-Za-z0-9_.-]", "-"), deps);
  }
}
