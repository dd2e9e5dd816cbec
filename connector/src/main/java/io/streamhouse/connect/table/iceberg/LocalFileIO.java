package io.streamhouse.connect.table.iceberg;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.apache.iceberg.Files;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * The FileIO of a warehouse on local disk: Iceberg's own local files ({@link Files#localInput},
 * {@link Files#localOutput}) instead of Hadoop's, whose local file system forks a {@code chmod}
 * process for every file it creates when Hadoop's native library is missing (as in a Connect
 * worker): with many tables that is a process per small file, and it once failed a task. Data files
 * are opened as {@link LocalHadoopOutputFiles}, so that Parquet writers do not parse Hadoop's
 * default configuration for each of them. Used by default for JDBC and Hadoop catalogs whose
 * warehouse is a local path and that name no {@code io-impl}.
 */
public final class LocalFileIO implements SupportsPrefixOperations {
  private static final long serialVersionUID = 1L;

  private Map<String, String> properties = Map.of();
  private transient volatile LocalHadoopOutputFiles hadoopFiles;

  @Override
  public void initialize(Map<String, String> props) {
    this.properties = Map.copyOf(props);
  }

  @Override
  public Map<String, String> properties() {
    return properties;
  }

  @Override
  public InputFile newInputFile(String location) {
    return Files.localInput(file(location));
  }

  /**
   * Creates the file's folders first: Iceberg's local output file creates them with {@code mkdirs},
   * which fails for the task that loses a race with another task creating the same new folder.
   */
  @Override
  public OutputFile newOutputFile(String location) {
    File file = file(location);
    File parent = file.getAbsoluteFile().getParentFile();
    if (parent != null) {
      try {
        java.nio.file.Files.createDirectories(parent.toPath());
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot create the folder of " + location, e);
      }
    }
    return hadoopFiles().output(file.getPath()).orElseGet(() -> Files.localOutput(file));
  }

  private LocalHadoopOutputFiles hadoopFiles() {
    LocalHadoopOutputFiles files = hadoopFiles;
    if (files == null) {
      synchronized (this) {
        files = hadoopFiles;
        if (files == null) {
          files = new LocalHadoopOutputFiles();
          hadoopFiles = files;
        }
      }
    }
    return files;
  }

  @Override
  public void deleteFile(String location) {
    try {
      java.nio.file.Files.deleteIfExists(file(location).toPath());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete " + location, e);
    }
  }

  /** The regular files under {@code prefix} (a folder), at any depth; none if it is missing. */
  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    Path root = file(prefix).toPath();
    if (!java.nio.file.Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> walk = java.nio.file.Files.walk(root)) {
      return walk.filter(java.nio.file.Files::isRegularFile)
          .map(
              p -> {
                try {
                  return new FileInfo(
                      p.toString(),
                      java.nio.file.Files.size(p),
                      java.nio.file.Files.getLastModifiedTime(p).toMillis());
                } catch (IOException e) {
                  return null; // deleted meanwhile
                }
              })
          .filter(Objects::nonNull)
          .toList();
    } catch (IOException | UncheckedIOException e) {
      throw new UncheckedIOException(
          "Cannot list " + prefix, e instanceof IOException io ? io : new IOException(e));
    }
  }

  @Override
  public void deletePrefix(String prefix) {
    for (FileInfo f : listPrefix(prefix)) {
      deleteFile(f.location());
    }
  }

  /** {@code /x}, {@code file:/x} and {@code file:///x} are the same file. */
  static File file(String location) {
    String path = location.startsWith("file:") ? location.substring("file:".length()) : location;
    if (path.startsWith("//")) {
      int first = 2;
      while (first < path.length() && path.charAt(first) == '/') {
        first++;
      }
      path = path.substring(first - 1); // one slash: no regex per file written or listed
    }
    return new File(path);
  }

  /** Whether {@code warehouse} is on the local disk: a path, or a {@code file:} location. */
  static boolean isLocal(String warehouse) {
    return warehouse != null
        && (warehouse.startsWith("/")
            || warehouse.startsWith("file:")
            || !warehouse.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*"));
  }
}
