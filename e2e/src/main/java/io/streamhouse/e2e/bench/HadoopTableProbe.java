package io.streamhouse.e2e.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;

/**
 * The current snapshot summary of a Hadoop-catalog table on local disk, read straight from its
 * {@code version-hint.text} and metadata JSON, and parsed again only when the version changed.
 *
 * <p>The benchmark polls it five times a second while a sink drains. Loading the table through a
 * catalog instead (a new Hadoop configuration, file status calls that fork {@code ls}/{@code chmod}
 * processes) took 0.2 to 0.4 of the machine's 2 cores away from the worker for the whole drain of a
 * table sink, and nothing from the do-nothing sink, whose end is read from consumer offsets.
 */
final class HadoopTableProbe {
  private final Path metadata;
  private int version = -1;
  private Map<String, String> summary = Map.of();

  /**
   * {@code table} is {@code namespace.name} in the Hadoop catalog at {@code warehouse} (a file:
   * URI).
   */
  HadoopTableProbe(String warehouse, String table) {
    int dot = table.lastIndexOf('.');
    this.metadata =
        Path.of(URI.create(warehouse))
            .resolve(table.substring(0, dot).replace('.', '/'))
            .resolve(table.substring(dot + 1))
            .resolve("metadata");
  }

  /**
   * The summary of the table's current snapshot; empty while the table or its snapshot does not
   * exist.
   */
  Map<String, String> currentSummary() {
    try {
      int hint =
          Integer.parseInt(
              Files.readString(metadata.resolve("version-hint.text"), StandardCharsets.UTF_8)
                  .trim());
      if (hint != version) {
        String json =
            Files.readString(
                metadata.resolve("v" + hint + ".metadata.json"), StandardCharsets.UTF_8);
        TableMetadata parsed = TableMetadataParser.fromJson(json);
        Snapshot current = parsed.currentSnapshot();
        summary = current == null ? Map.of() : current.summary();
        version = hint;
      }
    } catch (NoSuchFileException | NumberFormatException notYet) {
      // no table yet, or a hint being written: the last figure stands
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(
          "Cannot read the metadata of the table at " + metadata, e);
    }
    return summary;
  }
}
