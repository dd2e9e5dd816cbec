package io.streamhouse.e2e;

import java.nio.file.Path;
import java.util.List;

/** Public entry to {@link MavenClasspath} for the benchmark package. */
public final class MavenArtifacts {
  private MavenArtifacts() {}

  /** Resolves {@code coordinates} with their dependencies into {@code cacheRoot/name/lib}. */
  public static Path resolve(
      Path cacheRoot, String name, String mavenCmd, List<String> coordinates) {
    return MavenClasspath.resolve(cacheRoot, name, mavenCmd, coordinates);
  }
}
