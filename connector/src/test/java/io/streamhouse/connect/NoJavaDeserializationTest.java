package io.streamhouse.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No main class of the plugin uses Java serialization: nothing it reads (control topic, catalogs)
 * may reach an {@code ObjectInputStream}, whose readObject instantiates classes named by the bytes.
 * Reads the constant pools of the compiled classes, so a use by any means (new, subclass, field,
 * parameter) fails the build.
 */
class NoJavaDeserializationTest {
  private static final List<String> FORBIDDEN =
      List.of("java/io/ObjectInputStream", "java/io/ObjectOutputStream");

  @Test
  void noMainClassReferencesObjectStreams() throws IOException {
    Path classes = Path.of("target", "classes", "io", "streamhouse");
    assertThat(classes).isDirectory();
    List<String> offenders;
    int checked;
    try (Stream<Path> files = Files.walk(classes)) {
      List<Path> classFiles = files.filter(p -> p.toString().endsWith(".class")).toList();
      checked = classFiles.size();
      offenders =
          classFiles.stream()
              .filter(NoJavaDeserializationTest::references)
              .map(Path::toString)
              .toList();
    }
    assertThat(checked).isGreaterThan(50);
    assertThat(offenders).as("main classes that use Java serialization").isEmpty();
  }

  private static boolean references(Path classFile) {
    try {
      String bytes = new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1);
      return FORBIDDEN.stream().anyMatch(bytes::contains);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
