package io.streamhouse.connect.table.iceberg;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;

/**
 * Brings a keyed writer's index past the rows the connector's other task writers committed since
 * the snapshot it is good for, when it prepares a batch: the key columns of the data files they
 * added are read (and of the connector's compaction outputs since that hold their rows, as the
 * compactions' maps say), so the index knows every live row of the table again, whichever task
 * wrote it. Without this a task would not know a key another task inserted, and a record of that
 * key reaching it later (a key on two Kafka partitions: partitions added to a topic, a producer
 * keyed by another field, upserts without a Kafka key) would insert a second live row. The cost is
 * a read of the new files' key columns; a writer alone reads nothing ({@link OwnFiles}).
 *
 * <p>A row read of a key the writer's batch changed too, or that an earlier batch of the writer
 * (cut ahead, not committed yet) changed, means two writers changed one key since the index was
 * read: the writer's change comes later and the batch deletes that row (with an order-by column,
 * the row with the lower value goes: see {@link KeyIndex#supersede}), and a key the batch changed
 * unseen ({@link UnseenKeys}) is no longer unseen. If the batch also deletes the row the other
 * writer deleted, the coordinator rejects it ({@link StalePositions}, or a compaction's map that
 * dropped the row) and its task writes it again. A compacted row that came from this writer's or an
 * older file is left alone: the index moved it with the compaction's map, or holds a newer row of
 * its key (which may delete it in a batch not committed yet).
 */
final class OtherWritersCatchUp {
  /** Files read, rows read, and rows of keys the batch changed too (the older row now deleted). */
  record Result(int filesRead, int read, int replaced) {}

  private OtherWritersCatchUp() {}

  /**
   * Reads into {@code index} the rows of the files the connector's commits in {@code since} added
   * that its writer did not write, with the outputs of the connector's compactions in it, as they
   * are in {@code current}; {@code pending} holds the batch's deletes (packed positions), {@code
   * batch} tells the keys it changed and {@code unseen} those it changed unseen; {@code maps} are
   * the rewrite maps of the compactions in {@code since} that are known (oldest first).
   */
  static Result apply(
      Table table,
      Snapshot current,
      ForeignSnapshots.Since since,
      KeyIndex index,
      List<Long> pending,
      ForeignCatchUp.BatchKeys batch,
      UnseenKeys.Taken unseen,
      List<RewriteMap> maps) {
    Set<String> committed = added(table, since.commits());
    Set<String> read = new HashSet<>();
    for (String location : committed) {
      if (!index.own().contains(location)) {
        read.add(location);
      }
    }
    if (read.isEmpty()) {
      index.own().committed(committed);
      return new Result(0, 0, 0); // only this writer's rows: its compactions moved them already
    }
    // Another writer's rows may have been compacted since: the outputs that hold them are read too.
    Set<String> others = Set.copyOf(read);
    Set<String> outputs = outputsHolding(others, table, since, maps);
    read.addAll(outputs);
    int before = index.fileCount();
    int[] counts = new int[2];
    index.readFiles(
        table,
        current,
        location -> read.contains(IcebergFileCheck.normalized(location)),
        (key, packed, order) -> {
          counts[0]++;
          String file = IcebergFileCheck.normalized(index.file(KeyIndex.fileOf(packed)).location());
          if (outputs.contains(file) && !fromOthers(file, KeyIndex.rowOf(packed), maps, others)) {
            return; // this writer's row or an older one: the index has it where it went, or newer
          }
          if (!batch.changed(key) && !uncommitted(index, key, committed)) {
            index.put(key, packed, order); // the other writer deleted the row the index had
            return;
          }
          pending.add(index.supersede(key, packed, order)); // the older of the two rows goes
          unseen.seen(key);
          counts[1]++;
        });
    index.own().committed(committed);
    return new Result(index.fileCount() - before, counts[0], counts[1]);
  }

  /**
   * Whether the index holds {@code key}'s row in a file this writer wrote that is not committed yet
   * (an earlier batch, cut ahead): that row comes later than any committed one.
   */
  private static boolean uncommitted(KeyIndex index, long[] key, Set<String> committed) {
    long at = index.get(key);
    if (at == KeyPositions.NONE) {
      return false;
    }
    String file = IcebergFileCheck.normalized(index.file(KeyIndex.fileOf(at)).location());
    return index.own().contains(file) && !committed.contains(file);
  }

  /**
   * Whether the row at {@code row} of compaction output {@code file} came from one of {@code
   * others}' files, following {@code maps} back; true when no map tells (the safe side: the batch
   * then deletes the row, and is rejected at worst).
   */
  private static boolean fromOthers(
      String file, long row, List<RewriteMap> maps, Set<String> others) {
    RewriteMap.Place place = new RewriteMap.Place(file, row);
    for (int m = maps.size() - 1; m >= 0; m--) {
      Optional<RewriteMap.Place> source = maps.get(m).sourceOf(place.location(), place.position());
      if (source.isPresent()) {
        place = source.get();
      }
    }
    String origin = IcebergFileCheck.normalized(place.location());
    return origin.equals(file) || others.contains(origin);
  }

  /**
   * The outputs of the compactions in {@code since} that hold rows of {@code others}' files, by
   * their {@code maps} (a compaction of such an output too); all their outputs when the maps are
   * not all known.
   */
  private static Set<String> outputsHolding(
      Set<String> others, Table table, ForeignSnapshots.Since since, List<RewriteMap> maps) {
    if (maps.size() != since.compactions().size()) {
      return added(table, since.compactions());
    }
    Set<String> holding = new HashSet<>(others);
    Set<String> outputs = new HashSet<>();
    for (RewriteMap map : maps) {
      if (!java.util.Collections.disjoint(map.rewritten(), holding)) {
        outputs.addAll(map.written());
        holding.addAll(map.written());
      }
    }
    return outputs;
  }

  private static Set<String> added(Table table, List<Snapshot> snapshots) {
    Set<String> added = new HashSet<>();
    for (Snapshot s : snapshots) {
      for (DataFile file : SnapshotChanges.builderFor(table).snapshot(s).build().addedDataFiles()) {
        added.add(IcebergFileCheck.normalized(file.location()));
      }
    }
    return added;
  }
}
