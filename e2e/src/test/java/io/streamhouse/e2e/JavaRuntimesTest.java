package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the harness tells a Java home's version, and how a configured home overrides the scan. */
class JavaRuntimesTest {
  @TempDir Path dir;

  @Test
  void theReleaseFileGivesTheMajorVersion() throws IOException {
    assertThat(JavaRuntimes.majorVersion(home("jdk17", "17.0.15"))).hasValue(17);
    assertThat(JavaRuntimes.majorVersion(home("jdk25", "25.0.3"))).hasValue(25);
    assertThat(JavaRuntimes.majorVersion(home("jdk21ea", "21-ea"))).hasValue(21);
    assertThat(JavaRuntimes.majorVersion(home("jdk8", "1.8.0_402"))).hasValue(8);
  }

  @Test
  void aHomeWithoutAnExecutableJavaOrAReleaseFileHasNoVersion() throws IOException {
    Path noJava = dir.resolve("no-java");
    Files.createDirectories(noJava);
    Files.writeString(noJava.resolve("release"), "JAVA_VERSION=\"21.0.1\"\n");
    assertThat(JavaRuntimes.majorVersion(noJava)).isEqualTo(OptionalInt.empty());

    Path noRelease = home("no-release", "21.0.1");
    Files.delete(noRelease.resolve("release"));
    assertThat(JavaRuntimes.majorVersion(noRelease)).isEqualTo(OptionalInt.empty());
  }

  @Test
  void theSystemPropertyNamesTheRuntimeAndAnOlderOneFailsLoudly() throws IOException {
    String before = System.getProperty(JavaRuntimes.HOME_PROPERTY);
    try {
      Path jdk21 = home("jdk21", "21.0.5");
      System.setProperty(JavaRuntimes.HOME_PROPERTY, jdk21.toString());
      assertThat(JavaRuntimes.find(21)).contains(jdk21.resolve("bin/java"));

      System.setProperty(JavaRuntimes.HOME_PROPERTY, home("old", "17.0.15").toString());
      assertThatThrownBy(() -> JavaRuntimes.find(21))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("is not a Java 21+ home");
    } finally {
      if (before == null) {
        System.clearProperty(JavaRuntimes.HOME_PROPERTY);
      } else {
        System.setProperty(JavaRuntimes.HOME_PROPERTY, before);
      }
    }
  }

  /** A fake Java home: an executable {@code bin/java} and a {@code release} file. */
  private Path home(String name, String version) throws IOException {
    Path home = dir.resolve(name);
    Path java = home.resolve("bin/java");
    Files.createDirectories(java.getParent());
    Files.writeString(java, "#!/bin/sh\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(
        home.resolve("release"),
        "IMPLEMENTOR=\"Test\"\nJAVA_VERSION=\""
            + version
            + "\"\nJAVA_VERSION_DATE=\"2026-01-01\"\n");
    return home;
  }
}
