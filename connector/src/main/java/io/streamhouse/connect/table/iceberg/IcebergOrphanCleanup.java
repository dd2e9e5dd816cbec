package io.streamhouse.connect.table.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.ReachableFileUtil;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Deletes files in a table's data and metadata folders that nothing references and that are older
 * than a minimum age: data files of batches never committed (a task killed mid-batch, a batch
 * rejected or acknowledged as already present, a failed rewrite), and metadata left by failed
 * commits. Referenced means by any snapshot (its manifest list, manifests, data and delete files),
 * by the metadata log, statistics or the version hint. Only the table's own data and metadata
 * folders are listed, so files of another table nested under its location are never touched; paths
 * are compared without scheme and authority. Needs a FileIO that can list ({@link
 * SupportsPrefixOperations}); otherwise nothing is done.
 */
final class IcebergOrphanCleanup {
  private IcebergOrphanCleanup() {}

  /**
   * Deletes the table's unreferenced files older than {@code minAgeMs}; returns how many. Stops at
   * the deadline ({@link System#nanoTime()}).
   */
  static int clean(Table table, long minAgeMs, long nowMs, long deadlineNanos) {
    if (!(table.io() instanceof SupportsPrefixOperations io)
        || !PropertyUtil.propertyAsBoolean(
            table.properties(), TableProperties.GC_ENABLED, TableProperties.GC_ENABLED_DEFAULT)) {
      return 0;
    }
    table.refresh();
    Set<String> referenced = referenced(table);
    long olderThan = nowMs - minAgeMs;
    int deleted = 0;
    for (String folder : folders(table)) {
      for (FileInfo file : io.listPrefix(folder)) {
        if (System.nanoTime() >= deadlineNanos) {
          return deleted;
        }
        if (file.createdAtMillis() < olderThan && !referenced.contains(path(file.location()))) {
          io.deleteFile(file.location());
          deleted++;
        }
      }
    }
    return deleted;
  }

  private static Set<String> folders(Table table) {
    String location = table.location().replaceAll("/+$", "");
    Map<String, String> props = table.properties();
    Set<String> folders = new HashSet<>();
    folders.add(props.getOrDefault(TableProperties.WRITE_DATA_LOCATION, location + "/data"));
    folders.add(
        props.getOrDefault(TableProperties.WRITE_METADATA_LOCATION, location + "/metadata"));
    return folders;
  }

  /** Every file the table's metadata names, as scheme-less paths. */
  static Set<String> referenced(Table table) {
    FileIO io = table.io();
    Map<Integer, PartitionSpec> specs = table.specs();
    Set<String> files = new HashSet<>();
    Set<String> manifests = new HashSet<>();
    for (Snapshot s : table.snapshots()) {
      if (s.manifestListLocation() != null) {
        files.add(path(s.manifestListLocation()));
      }
      for (ManifestFile manifest : s.allManifests(io)) {
        if (!manifests.add(path(manifest.path()))) {
          continue; // shared with an earlier snapshot: read once
        }
        try {
          if (manifest.content() == ManifestContent.DATA) {
            try (CloseableIterable<String> paths = ManifestFiles.readPaths(manifest, io, specs)) {
              paths.forEach(p -> files.add(path(p)));
            }
          } else {
            try (ManifestReader<DeleteFile> deletes =
                ManifestFiles.readDeleteManifest(manifest, io, specs)) {
              deletes.forEach(d -> files.add(path(d.location())));
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
        }
      }
    }
    files.addAll(manifests);
    ReachableFileUtil.metadataFileLocations(table, true).forEach(p -> files.add(path(p)));
    ReachableFileUtil.statisticsFilesLocations(table).forEach(p -> files.add(path(p)));
    table.partitionStatisticsFiles().forEach(p -> files.add(path(p.path())));
    files.add(path(ReachableFileUtil.versionHintLocation(table)));
    if (table instanceof HasTableOperations ops) {
      files.add(path(ops.operations().current().metadataFileLocation()));
    }
    return files;
  }

  /**
   * {@code s3://bucket/a/b}, {@code s3a://bucket/a/b} -> {@code /a/b}-like keys; local paths as is.
   */
  static String path(String location) {
    try {
      URI uri = URI.create(location.replace(" ", "%20"));
      String p = uri.getScheme() == null ? location : uri.getPath();
      String authority = uri.getAuthority() == null ? "" : uri.getAuthority();
      return (uri.getScheme() == null || "file".equals(uri.getScheme()) ? "" : authority)
          + (p == null ? location : p).replaceAll("/+", "/");
    } catch (IllegalArgumentException notAUri) {
      return location.replaceAll("/+", "/");
    }
  }
}
