package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.table.SnapshotKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a keyed writer past what others committed since its key index was read, when it prepares a
 * batch. When an outside writer committed ({@link ForeignSnapshots}), {@link ForeignCatchUp} reads
 * the keys of the files it touched. Otherwise every snapshot since that removed data files must be
 * one of the connector's compactions with a {@link RewriteMap}, and the maps move the index's
 * positions and the batch's pending deletes to the rows' new places, so that the batch points only
 * into live files and is not rejected. A position at a row a compaction dropped (deleted before it,
 * by another task whose keys the index also holds) leaves the index. Whatever it cannot translate
 * (a removal by another writer, a map gone or unreadable) it leaves as it is: the coordinator then
 * rejects the batch as before ({@link KeyedBatchCheck}), and the task reads its index again. Last,
 * the rows the connector's other tasks committed since are read ({@link OtherWritersCatchUp}), so
 * the index knows every key, whichever task wrote it.
 */
final class KeyIndexCatchUp {
  private static final Logger LOG = LoggerFactory.getLogger(KeyIndexCatchUp.class);

  private KeyIndexCatchUp() {}

  /**
   * Translates {@code index} and {@code pending} (packed positions) past the compactions of {@code
   * table} since snapshot {@code base} ({@code -1}: none then); returns the snapshot they are now
   * good for (the current one when only the connector's commits came since), or {@code base} when
   * it cannot say. {@code keys} name the connector's commits and its rewrite maps; {@code batch}
   * says which keys the batch being prepared changed, {@code unseen} which of them its index had no
   * row of (one leaves when the batch now deletes another writer's row of it).
   */
  static long catchUp(
      Table table,
      SnapshotKeys keys,
      long base,
      KeyIndex index,
      List<Long> pending,
      ForeignCatchUp.BatchKeys batch,
      UnseenKeys.Taken unseen) {
    table.refresh();
    Snapshot current = table.currentSnapshot();
    if (current == null || current.snapshotId() == base) {
      return base;
    }
    Optional<ForeignSnapshots.Since> snapshots = ForeignSnapshots.since(table, keys, base);
    if (snapshots.isPresent() && !snapshots.get().foreign().isEmpty()) {
      return pastForeign(table, current, snapshots.get(), base, index, pending, batch, unseen);
    }
    String mapKey = keys.rewriteMap();
    Optional<List<String>> since = MappedCompactions.since(table, mapKey, base);
    if (since.isEmpty()) {
      return base; // removed by a writer without a map, or the base is gone: checked at commit
    }
    if (since.get().isEmpty()) {
      // Only the connector's commits since: once the rows its other writers added are read, the
      // index is good for the current snapshot, so the next check looks back only this far.
      return pastOtherWriters(
          table, current, snapshots.orElseThrow(), base, index, pending, batch, unseen, List.of());
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
    return pastOtherWriters(
        table, current, snapshots.orElseThrow(), base, index, pending, batch, unseen, loaded);
  }

  /**
   * Reads the rows the connector's other writers committed since {@code base} ({@link
   * OtherWritersCatchUp}); the current snapshot's id, or {@code base} when it cannot (the
   * coordinator then judges the batch against what was committed since {@code base}).
   */
  private static long pastOtherWriters(
      Table table,
      Snapshot current,
      ForeignSnapshots.Since since,
      long base,
      KeyIndex index,
      List<Long> pending,
      ForeignCatchUp.BatchKeys batch,
      UnseenKeys.Taken unseen,
      List<RewriteMap> maps) {
    if (since.commits().isEmpty()) {
      return current.snapshotId();
    }
    long start = System.nanoTime();
    OtherWritersCatchUp.Result result;
    try {
      result =
          OtherWritersCatchUp.apply(table, current, since, index, pending, batch, unseen, maps);
    } catch (RuntimeException e) {
      LOG.warn(
          "Cannot read the rows other tasks committed to {} since snapshot {}; the next batch is"
              + " checked against them at commit: {}",
          table.name(),
          base,
          e.toString());
      return base;
    }
    if (result.replaced() > 0) {
      LOG.info(
          "Another task committed rows of {} key(s) of table {} that this task's batch changed too"
              + " (a key's records on two Kafka partitions): the batch, committed later, replaces"
              + " them",
          result.replaced(),
          table.name());
    }
    if (result.filesRead() > 0) {
      LOG.debug(
          "Read {} rows of {} data files other tasks committed to {} in {} ms",
          result.read(),
          result.filesRead(),
          table.name(),
          (System.nanoTime() - start) / 1_000_000);
    }
    return current.snapshotId();
  }

  private static long pastForeign(
      Table table,
      Snapshot current,
      ForeignSnapshots.Since since,
      long base,
      KeyIndex index,
      List<Long> pending,
      ForeignCatchUp.BatchKeys batch,
      UnseenKeys.Taken unseen) {
    long start = System.nanoTime();
    String first = ForeignSnapshots.describe(since.foreign().get(0));
    Optional<ForeignCatchUp.Result> result;
    try {
      result = ForeignCatchUp.apply(table, current, since.notCommits(), index, pending, batch);
    } catch (RuntimeException e) {
      LOG.warn(
          "Cannot follow {} in table {} by its files; the next batch is rejected and the key index"
              + " read again: {}",
          first,
          table.name(),
          e.toString());
      return base;
    }
    if (result.isEmpty()) {
      LOG.warn(
          "Table {} has equality deletes since snapshot {} ({} and after): the next batch is"
              + " rejected and the key index read again",
          table.name(),
          base,
          first);
      return base;
    }
    ForeignCatchUp.Result r = result.get();
    long caughtUp =
        pastOtherWriters(table, current, since, base, index, pending, batch, unseen, List.of());
    LOG.info(
        "Moved the key index of {} past {} snapshot(s) of other writers ({} first) to snapshot {}"
            + " in {} ms: {} data files read again or new, {} keys read, {} forgotten, {} rows"
            + " the batch replaces besides",
        table.name(),
        since.foreign().size(),
        first,
        current.snapshotId(),
        (System.nanoTime() - start) / 1_000_000,
        r.filesRead(),
        r.read(),
        r.forgotten(),
        r.superseded());
    return caughtUp;
  }

  /**
   * Why the identifier fields of {@code table} (refreshed) are no longer those {@code index} is
   * keyed by (changed outside the connector), naming table and route; empty if they are.
   */
  static Optional<String> keyChange(Table table, KeyIndex index, String route) {
    List<Integer> now;
    try {
      now = KeyIndex.keyIds(table.schema());
    } catch (IllegalStateException e) {
      now = List.copyOf(table.schema().identifierFieldIds());
    }
    if (now.equals(index.keyIds())) {
      return Optional.empty();
    }
    return Optional.of(
        "the identifier fields of table "
            + table.name()
            + " changed outside the connector (field ids "
            + index.keyIds()
            + " when its key index was read, "
            + now
            + " now); route "
            + route
            + " drops its batch and its task fails: a restart of the task reads the key index by the"
            + " new key");
  }
}
