package io.streamhouse.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Java runtime newer than the one running the tests, for child JVMs that need it: the tests run
 * on Java 17, and some servers they start (Nessie 0.99) are compiled for Java 21. Looked for in
 * this order: the system property {@value #HOME_PROPERTY}, the environment variable {@value
 * #HOME_ENV}, the running JVM, then the JDK folders of {@code /usr/lib/jvm}, {@code /opt/java} and
 * {@code /opt/*jdk*}, whose {@code release} file gives the version.
 */
final class JavaRuntimes {
  static final String HOME_PROPERTY = "streamhouse.java21.home";
  static final String HOME_ENV = "JAVA21_HOME";
  private static final Pattern VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"([^\"]+)\"");

  private JavaRuntimes() {}

  /**
   * The {@code bin/java} of a Java {@code minimum}+ runtime. A home named by the property or the
   * environment variable that is not one fails loudly instead of being passed over. Of the scanned
   * folders, the lowest version at or above {@code minimum} wins: the closest to what the server
   * was built for.
   */
  static Optional<Path> find(int minimum) {
    for (String[] setting :
        List.of(
            new String[] {"-D" + HOME_PROPERTY, System.getProperty(HOME_PROPERTY)},
            new String[] {"$" + HOME_ENV, System.getenv(HOME_ENV)})) {
      if (setting[1] != null && !setting[1].isBlank()) {
        Path home = Path.of(setting[1]);
        if (majorVersion(home).orElse(0) < minimum) {
          throw new IllegalStateException(
              setting[0]
                  + "="
                  + home
                  + " is not a Java "
                  + minimum
                  + "+ home (no bin/java, or its release file says an older JAVA_VERSION)");
        }
        return Optional.of(java(home));
      }
    }
    Path running = Path.of(System.getProperty("java.home"));
    if (majorVersion(running).orElse(0) >= minimum) {
      return Optional.of(java(running));
    }
    return scanned().stream()
        .filter(h -> majorVersion(h).orElse(0) >= minimum)
        .min(
            Comparator.comparingInt((Path h) -> majorVersion(h).orElse(0))
                .thenComparing(Path::toString))
        .map(JavaRuntimes::java);
  }

  /** Where {@link #find} looks after the settings, for error messages. */
  static String searched() {
    return "-D"
        + HOME_PROPERTY
        + ", $"
        + HOME_ENV
        + ", the running JVM, /usr/lib/jvm/*, /opt/java/*, /opt/*jdk*";
  }

  /**
   * The major version a Java home's {@code release} file names (17 for "17.0.15", 8 for
   * "1.8.0_402"); empty without a {@code bin/java} or a readable version.
   */
  static OptionalInt majorVersion(Path home) {
    Path release = home.resolve("release");
    if (!Files.isExecutable(java(home)) || !Files.isRegularFile(release)) {
      return OptionalInt.empty();
    }
    try {
      Matcher m = VERSION.matcher(Files.readString(release, StandardCharsets.UTF_8));
      if (!m.find()) {
        return OptionalInt.empty();
      }
      String[] parts = m.group(1).split("[._+-]");
      int first = Integer.parseInt(parts[0]);
      return OptionalInt.of(first == 1 && parts.length > 1 ? Integer.parseInt(parts[1]) : first);
    } catch (IOException | UncheckedIOException | NumberFormatException e) {
      return OptionalInt.empty();
    }
  }

  private static Path java(Path home) {
    return home.resolve("bin").resolve("java");
  }

  /** The candidate homes, each once (Debian links several names to one JDK). */
  private static List<Path> scanned() {
    Set<Path> homes = new LinkedHashSet<>();
    list(Path.of("/usr/lib/jvm"), "*", homes);
    list(Path.of("/opt/java"), "*", homes);
    list(Path.of("/opt"), "*jdk*", homes);
    return new ArrayList<>(homes);
  }

  private static void list(Path dir, String glob, Set<Path> into) {
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (DirectoryStream<Path> children = Files.newDirectoryStream(dir, glob)) {
      for (Path child : children) {
        if (Files.isDirectory(child)) {
          into.add(child.toRealPath());
        }
      }
    } catch (IOException e) {
      // an unreadable folder holds no runtime we could use
    }
  }
}
