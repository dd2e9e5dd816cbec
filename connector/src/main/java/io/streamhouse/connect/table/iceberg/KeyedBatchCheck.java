package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.table.SnapshotKeys;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.kafka.common.TopicPartition;

/**
 * Whether the positions of a keyed batch still point at the rows they mean, on the table as the
 * commit found it (docs/iceberg-primary-key-tables.md, "Exactly once"): rows of a key come from one
 * Kafka partition, so the index of the batch's writer knew every live row of the batch's keys
 * unless another writer committed rows of one of its partitions since the index was read, an
 * outside writer (another engine, another connector) committed anything since ({@link
 * ForeignSnapshots}), or a data file its deletes point into was removed since. Either way the batch
 * is rejected: its task starts over and reads its index again; unless every data file removal since
 * was one of the connector's compactions with a {@link RewriteMap}, whose maps then move the
 * batch's positions to the rows' new places ({@link MappedCompactions}).
 */
final class KeyedBatchCheck {
  private KeyedBatchCheck() {}

  /**
   * Why {@code batch} ({@code files} decoded from it) cannot be committed to {@code table}, whose
   * connector state is {@code watermarks} and {@code writers}; empty if it can. When it can only
   * with its positions moved, the locations of the rewrite maps that move them (oldest first) go
   * into {@code translations} under its batch id; {@code keys} name the maps and the connector's
   * own commits.
   */
  static Optional<String> problem(
      Table table,
      OfferedBatch batch,
      KeyedFilesCodec.KeyedFiles files,
      Watermarks watermarks,
      Watermarks writers,
      SnapshotKeys keys,
      Map<String, List<String>> translations) {
    String mapKey = keys.rewriteMap();
    for (TopicPartition tp : batch.ranges().keySet()) {
      OptionalLong writer = writers.of(tp);
      if (writer.isPresent() && writer.getAsLong() == files.writer()) {
        continue; // this writer's own rows since its index was read
      }
      if (writer.equals(files.baseWriters().of(tp))
          && watermarks.of(tp).equals(files.baseWatermarks().of(tp))) {
        continue; // nobody committed rows of tp since the index was read
      }
      return Optional.of(
          "rows of "
              + tp
              + " were committed by another writer since its key index was read (watermark then "
              + text(files.baseWatermarks().of(tp))
              + ", now "
              + text(watermarks.of(tp))
              + ")");
    }
    Optional<ForeignSnapshots.Since> since =
        ForeignSnapshots.since(table, keys, files.baseSnapshot());
    if (since.isEmpty()) {
      // Whatever was committed between it and now cannot be seen: an outside insert of one of the
      // batch's keys would go unnoticed.
      return Optional.of(
          "the snapshot its key index was read from ("
              + files.baseSnapshot()
              + ") is no longer in the table's history");
    }
    if (!since.get().foreign().isEmpty()) {
      // An outside writer may have added, moved or deleted rows of this batch's keys: a later
      // change must replace whatever row the table holds for its key, so the index is read again.
      return Optional.of(
          ForeignSnapshots.describe(since.get().foreign().get(0))
              + ", which the connector did not write, changed the table since its key index was"
              + " read at snapshot "
              + files.baseSnapshot());
    }
    if (files.referenced().isEmpty() || since.get().compactions().isEmpty()) {
      return Optional.empty(); // only the connector's commits since, which remove no data file
    }
    // The base is in the history (checked above), so the set is there.
    Set<String> removed = removedSince(table, files.baseSnapshot()).orElseThrow();
    for (String path : files.referenced()) {
      if (removed.contains(IcebergFileCheck.normalized(path))) {
        Optional<List<String>> maps = MappedCompactions.since(table, mapKey, files.baseSnapshot());
        if (maps.isPresent() && !maps.get().isEmpty()) {
          translations.put(batch.batchId(), maps.get());
          return Optional.empty();
        }
        return Optional.of(
            "its deletes point into data file "
                + path
                + ", which was removed since by a writer that left no rewrite map");
      }
    }
    return Optional.empty();
  }

  /**
   * The data files removed by the snapshots after {@code base} up to the current one; empty if
   * {@code base} is not in the current snapshot's ancestry ({@code -1}: the table had none then).
   * Only snapshots whose summary counts removed files are read.
   */
  static Optional<Set<String>> removedSince(Table table, long base) {
    Set<String> removed = new HashSet<>();
    Snapshot s = table.currentSnapshot();
    while (s != null && s.snapshotId() != base) {
      Map<String, String> summary = s.summary();
      String count = summary == null ? null : summary.get(SnapshotSummary.DELETED_FILES_PROP);
      if (count == null || !count.equals("0")) {
        for (DataFile file :
            SnapshotChanges.builderFor(table).snapshot(s).build().removedDataFiles()) {
          removed.add(IcebergFileCheck.normalized(file.location()));
        }
      }
      s = s.parentId() == null ? null : table.snapshot(s.parentId());
    }
    if (s == null && base != -1) {
      return Optional.empty();
    }
    return Optional.of(removed);
  }

  private static String text(OptionalLong value) {
    return value.isPresent() ? Long.toString(value.getAsLong()) : "none";
  }
}
