package io.streamhouse.e2e;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A folder of the shared resolution cache ({@code cacheRoot/NAME}), filled once: its {@code
 * .complete} marker says it is, and a file lock on {@code cacheRoot/NAME.lock} keeps test JVMs that
 * run side by side from filling it at once (one would overwrite jars the other runs).
 */
final class CacheFolder {
  /** Fills the folder; writes the marker last. */
  @FunctionalInterface
  interface Fill {
    void into(Path home, Path complete) throws IOException;
  }

  private CacheFolder() {}

  /** The folder {@code cacheRoot/name}, filled by {@code fill} unless it was before; its marker. */
  static Path filledOnce(Path cacheRoot, String name, Fill fill) throws IOException {
    Path home = cacheRoot.resolve(name).toAbsolutePath();
    Path complete = home.resolve(".complete");
    if (Files.exists(complete)) {
      return complete;
    }
    Files.createDirectories(cacheRoot);
    try (FileChannel lock =
            FileChannel.open(
                cacheRoot.resolve(name + ".lock"),
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock held = lock.lock()) {
      if (!Files.exists(complete)) {
        Files.createDirectories(home);
        fill.into(home, complete);
      }
    }
    return complete;
  }
}
