package io.streamhouse.connect.table.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a keyed writer past the compactions committed since its key index was read, when it
 * prepares a batch: every snapshot since that removed data files must be one of the connector's
 * compactions with a {@link RewriteMap}, and the maps move the index's positions and the batch's
 * pending deletes to the rows' new places, so that the batch points only into live files and is not
 * rejected. A position at a row a compaction dropped (deleted before it, by another task whose keys
 * the index also holds) leaves the index. Whatever it cannot translate (a removal by another
 * writer, a map gone or unreadable) it leaves as it is: the coordinator then rejects the batch as
 * before ({@link KeyedBatchCheck}), and the task reads its index again.
 */
final class KeyIndexCatchUp {
  private static final Logger LOG = LoggerFactory.getLogger(KeyIndexCatchUp.class);

  private KeyIndexCatchUp() {}

  /**
   * Translates {@code index} and {@code pending} (packed positions) past the compactions of {@code
   * table} since snapshot {@code base} ({@code -1}: none then); returns the snapshot they are now
   * good for, or {@code base} when nothing was translated. {@code mapKey} is the summary key of the
   * connector's rewrite maps.
   */
  static long catchUp(Table table, String mapKey, long base, KeyIndex index, List<Long> pending) {
    table.refresh();
    Snapshot current = table.currentSnapshot();
    if (current == null || current.snapshotId() == base) {
      return base;
    }
    Optional<List<String>> since = MappedCompactions.since(table, mapKey, base);
    if (since.isEmpty() || since.get().isEmpty()) {
      return base; // nothing removed, or removed by a writer without a map
    }
    List<String> maps = since.get();
    long start = System.nanoTime();
    List<RewriteMap> loaded = new ArrayList<>();
    try {
      for (String location : maps) {
        loaded.add(RewriteMap.read(table.io(), location));
      }
    } catch (RuntimeException e) {
      LOG.warn(
          "Cannot read a rewrite map of {}; the next batch is checked against its old key index"
              + " (and read again if rejected): {}",
          table.name(),
          e.toString());
      return base;
    }
    int dropped = 0;
    for (RewriteMap map : loaded) {
      dropped += index.translate(map, pending);
    }
    LOG.info(
        "Moved the key index of {} past {} compaction(s) to snapshot {} in {} ms ({} keys; {} of"
            + " rows deleted before the compaction left it)",
        table.name(),
        loaded.size(),
        current.snapshotId(),
        (System.nanoTime() - start) / 1_000_000,
        index.keys(),
        dropped);
    return current.snapshotId();
  }
}
