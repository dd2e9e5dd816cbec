package io.streamhouse.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The size limits of the engineering standards, over the Java sources of every module of the
 * repository: no main class above 400 lines, no test class above 800. A failure names each file
 * over its limit with its length.
 */
class SourceSizeLimitsTest {
  private static final int MAX_MAIN_LINES = 400;
  private static final int MAX_TEST_LINES = 800;

  /** The repository root, where the top pom.xml is (set by the build; else the module's parent). */
  private static final Path ROOT =
      Path.of(System.getProperty("streamhouse.repo.root", "..")).toAbsolutePath().normalize();

  @Test
  void noMainClassIsLongerThan400Lines() {
    List<String> sources = sources("src/main/java");
    assertThat(sources).as("main sources found").isNotEmpty();
    assertThat(over(sources, MAX_MAIN_LINES))
        .as("main classes over %d lines", MAX_MAIN_LINES)
        .isEmpty();
  }

  @Test
  void noTestClassIsLongerThan800Lines() {
    List<String> sources = sources("src/test/java");
    assertThat(sources).as("test sources found").isNotEmpty();
    assertThat(over(sources, MAX_TEST_LINES))
        .as("test classes over %d lines", MAX_TEST_LINES)
        .isEmpty();
  }

  /** The Java files under {@code <module>/<dir>} of every module, relative to the root. */
  private static List<String> sources(String dir) {
    try (Stream<Path> modules = Files.list(ROOT)) {
      return modules
          .map(m -> m.resolve(dir))
          .filter(Files::isDirectory)
          .flatMap(SourceSizeLimitsTest::javaFiles)
          .map(f -> ROOT.relativize(f).toString())
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Stream<Path> javaFiles(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(f -> f.toString().endsWith(".java")).toList().stream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A source file and its length. */
  private record Sized(String path, long lines) {
    @Override
    public String toString() {
      return path + ": " + lines + " lines";
    }
  }

  /** Each of {@code sources} longer than {@code max} lines, as "path: N lines". */
  private static List<String> over(List<String> sources, int max) {
    return sources.stream()
        .map(s -> new Sized(s, lines(ROOT.resolve(s))))
        .filter(s -> s.lines() > max)
        .map(Sized::toString)
        .toList();
  }

  private static long lines(Path file) {
    try (Stream<String> lines = Files.lines(file)) {
      return lines.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
