package io.streamhouse.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Log configuration for the child JVMs: INFO to stdout (which goes to the process's log file); a
 * broker with an authorizer logs every denied request.
 */
final class LogConfig {
  private LogConfig() {}

  static void write(Path dir) {
    try {
      Files.createDirectories(dir);
      Files.writeString(
          dir.resolve("log4j2.properties"),
          """
          status = warn
          appender.out.type = Console
          appender.out.name = OUT
          appender.out.layout.type = PatternLayout
          appender.out.layout.pattern = [%d] %p %X{connector.context}%m (%c)%n
          rootLogger.level = INFO
          rootLogger.appenderRef.out.ref = OUT
          logger.kafka.name = kafka
          logger.kafka.level = WARN
          logger.state.name = state.change.logger
          logger.state.level = WARN
          logger.authorizer.name = kafka.authorizer.logger
          logger.authorizer.level = INFO
          logger.reflections.name = org.reflections
          logger.reflections.level = ERROR
          logger.clients.name = org.apache.kafka.clients
          logger.clients.level = WARN
          logger.streamhouse.name = io.streamhouse
          logger.streamhouse.level = INFO
          """,
          StandardCharsets.UTF_8);
      Files.writeString(
          dir.resolve("log4j.properties"),
          """
          log4j.rootLogger=INFO, stdout
          log4j.appender.stdout=org.apache.log4j.ConsoleAppender
          log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
          log4j.appender.stdout.layout.ConversionPattern=[%d] %p %X{connector.context}%m (%c)%n
          log4j.logger.kafka=WARN
          log4j.logger.state.change.logger=WARN
          log4j.logger.kafka.authorizer.logger=INFO
          log4j.logger.org.reflections=ERROR
          log4j.logger.org.apache.kafka.clients=WARN
          log4j.logger.io.streamhouse=INFO
          """,
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write log configuration into " + dir, e);
    }
  }
}
