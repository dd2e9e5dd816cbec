package io.streamhouse.connect.migration;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The Connect worker's properties, found as the Apache sink finds them: the JVM was started as
 * {@code ConnectDistributed} or {@code ConnectStandalone} with the properties file as its first
 * argument. Empty when that is not so or the file cannot be read.
 */
final class WorkerProperties {
  private WorkerProperties() {}

  /** The properties of the worker this JVM runs. */
  static Map<String, String> ofThisJvm() {
    return of(System.getProperty("sun.java.command"));
  }

  /** The worker properties named by JVM command line {@code command}. */
  static Map<String, String> of(String command) {
    if (command == null || command.isBlank()) {
      return Map.of();
    }
    String[] args = command.trim().split("\\s+");
    if (args.length < 2
        || !(args[0].endsWith(".ConnectDistributed") || args[0].endsWith(".ConnectStandalone"))) {
      return Map.of();
    }
    Properties properties = new Properties();
    try (InputStream in = Files.newInputStream(Path.of(args[1]))) {
      properties.load(in);
    } catch (IOException | IllegalArgumentException e) {
      return Map.of();
    }
    Map<String, String> result = new LinkedHashMap<>();
    properties.stringPropertyNames().forEach(k -> result.put(k, properties.getProperty(k)));
    return result;
  }
}
