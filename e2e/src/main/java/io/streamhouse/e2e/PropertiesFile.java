package io.streamhouse.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Writes a Java properties file in a stable, readable order. */
final class PropertiesFile {
  private PropertiesFile() {}

  static void write(Path file, Map<String, String> props) {
    StringBuilder out = new StringBuilder();
    props.forEach((k, v) -> out.append(k).append('=').append(v.replace("\\", "\\\\")).append('\n'));
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, out.toString(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file, e);
    }
  }
}
