package io.streamhouse.e2e;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Builds the command line of a child JVM running one Kafka main class. */
final class JavaCommand {
  private JavaCommand() {}

  static List<String> of(
      KafkaDistribution kafka,
      Path logConfigDir,
      List<String> jvmFlags,
      String mainClass,
      String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmFlags);
    cmd.add("-Djava.awt.headless=true");
    if (kafka.usesLog4j2()) {
      cmd.add("-Dlog4j2.configurationFile=" + logConfigDir.resolve("log4j2.properties"));
    } else {
      cmd.add("-Dlog4j.configuration=file:" + logConfigDir.resolve("log4j.properties"));
    }
    cmd.add("-cp");
    cmd.add(kafka.classpath());
    cmd.add(mainClass);
    cmd.addAll(List.of(args));
    return cmd;
  }
}
