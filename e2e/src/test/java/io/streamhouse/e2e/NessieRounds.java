package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.table.SnapshotKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Types;

/**
 * The connector's rounds as a reader of a Nessie catalog sees them: each table's round (the commit
 * id in its current snapshot) at one Nessie commit, read from the metadata files through S3FileIO
 * (a metadata file is read once), and the check that each round became visible in one Nessie commit
 * for all of its tables; and the check that a new column becomes visible with the files written
 * with it, never before them (a manifest is read once).
 */
final class NessieRounds implements AutoCloseable {
  private final NessieServer nessie;
  private final SnapshotKeys keys;
  private final FileIO io;
  private final Map<String, Long> roundOf = new ConcurrentHashMap<>();
  private final Map<String, TableMetadata> metadataAt = new HashMap<>();
  private final Map<String, ColumnsWritten> manifestColumns = new HashMap<>();

  NessieRounds(NessieServer nessie, String connector) {
    this.nessie = nessie;
    this.keys = new SnapshotKeys(connector);
    this.io = CatalogUtil.loadFileIO("org.apache.iceberg.aws.s3.S3FileIO", fileIo(nessie), null);
  }

  /** What an Iceberg client needs beside the REST URI to read and write the catalog's files. */
  static Map<String, String> fileIo(NessieServer nessie) {
    Map<String, String> props = new HashMap<>(nessie.catalogProperties());
    props.remove("uri");
    props.remove("type");
    return props;
  }

  /** Each table of the connector with its round at Nessie commit {@code hash}. */
  Map<String, Long> roundsAt(String hash) {
    Map<String, Long> rounds = new TreeMap<>();
    nessie
        .metadataLocations(hash)
        .forEach(
            (table, location) -> {
              long round = roundOf.computeIfAbsent(location, this::roundIn);
              if (round >= 0) {
                rounds.put(table, round);
              }
            });
    return rounds;
  }

  /**
   * Walks every commit of branch main: asserts that each round became visible in exactly one Nessie
   * commit, for all of its tables; returns the tables of each round.
   */
  Map<Long, Set<String>> assertEachRoundVisibleInOneCommit(String after) {
    Map<Long, Set<String>> visibleIn = new TreeMap<>();
    Map<Long, Set<String>> tablesOf = new HashMap<>();
    Map<String, Long> current = new HashMap<>();
    List<String> hashes = nessie.commitHashes();
    for (String hash : hashes) {
      roundsAt(hash)
          .forEach(
              (table, round) -> {
                if (!round.equals(current.put(table, round))) {
                  visibleIn.computeIfAbsent(round, r -> new HashSet<>()).add(hash);
                  tablesOf.computeIfAbsent(round, r -> new HashSet<>()).add(table);
                }
              });
    }
    System.out.printf(
        "%s: %d Nessie commits, %d rounds, after %s%n",
        keys.commitId(), hashes.size(), visibleIn.size(), after);
    assertThat(visibleIn)
        .as("the Nessie commits in which each round became visible, after %s", after)
        .isNotEmpty()
        .allSatisfy((round, commits) -> assertThat(commits).as("round %d", round).hasSize(1));
    return tablesOf;
  }

  /**
   * Walks every commit of branch main, for each table named {@code prefix}...: wherever it has one
   * of {@code columns}, a data file of its current snapshot was written with that column (the
   * schema change commits with the files written with it, never a round before them); and every
   * column a data file of the snapshot was written with is in the table's schema (no values hidden
   * by a change taken back). Returns how many (commit, table, column) states had a new column.
   */
  int assertNewColumnsCommitWithTheirFiles(String prefix, List<String> columns) {
    int states = 0;
    List<String> onlyNulls = new ArrayList<>();
    for (String hash : nessie.commitHashes()) {
      for (Map.Entry<String, String> table : nessie.metadataLocations(hash).entrySet()) {
        if (!table.getKey().startsWith(prefix)) {
          continue;
        }
        TableMetadata metadata =
            metadataAt.computeIfAbsent(table.getValue(), l -> TableMetadataParser.read(io, l));
        ColumnsWritten written = columnsWritten(metadata);
        assertThat(written.columns())
            .as(
                "columns the files of %s at Nessie commit %s were written with",
                table.getKey(), hash)
            .allSatisfy(id -> assertThat(metadata.schema().findField(id)).isNotNull());
        for (String column : columns) {
          Types.NestedField field = metadata.schema().findField(column);
          if (field != null) {
            states++;
            assertThat(written.columns())
                .as(
                    "%s at Nessie commit %s has column %s (id %d): a data file written with it",
                    table.getKey(), hash, column, field.fieldId())
                .contains(field.fieldId());
            if (!written.withValues().contains(field.fieldId())) {
              onlyNulls.add(table.getKey() + "." + column + " at " + hash);
            }
          }
        }
      }
    }
    // Legitimate, shown for the record: records from before the field (of a partition behind the
    // others, or read again after a rewind), written by a writer that already had the column.
    System.out.printf(
        "%d (commit, table, new column) states, %d of them with only nulls: %s%n",
        states, onlyNulls.size(), onlyNulls);
    return states;
  }

  /** The field ids the data files of a table's current snapshot have counts of, and values of. */
  private record ColumnsWritten(Set<Integer> columns, Set<Integer> withValues) {}

  private ColumnsWritten columnsWritten(TableMetadata metadata) {
    Snapshot current = metadata.currentSnapshot();
    ColumnsWritten all = new ColumnsWritten(new HashSet<>(), new HashSet<>());
    if (current != null) {
      for (ManifestFile manifest : current.dataManifests(io)) {
        ColumnsWritten in =
            manifestColumns.computeIfAbsent(
                manifest.path(), k -> columnsWritten(manifest, metadata));
        all.columns().addAll(in.columns());
        all.withValues().addAll(in.withValues());
      }
    }
    return all;
  }

  private ColumnsWritten columnsWritten(ManifestFile manifest, TableMetadata metadata) {
    ColumnsWritten written = new ColumnsWritten(new HashSet<>(), new HashSet<>());
    try (ManifestReader<DataFile> files = ManifestFiles.read(manifest, io, metadata.specsById())) {
      for (DataFile file : files) {
        Map<Integer, Long> nulls =
            file.nullValueCounts() == null ? Map.of() : file.nullValueCounts();
        if (file.valueCounts() != null) {
          file.valueCounts()
              .forEach(
                  (id, values) -> {
                    written.columns().add(id);
                    if (values > nulls.getOrDefault(id, 0L)) {
                      written.withValues().add(id);
                    }
                  });
        }
      }
      return written;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private long roundIn(String location) {
    TableMetadata metadata = TableMetadataParser.read(io, location);
    Snapshot current = metadata.currentSnapshot();
    String id = current == null ? null : current.summary().get(keys.commitId());
    return id == null ? -1 : Long.parseLong(id);
  }

  @Override
  public void close() {
    io.close();
  }
}
