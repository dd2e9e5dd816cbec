package io.streamhouse.connect.table.iceberg;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.deletes.PositionDeleteIndex;

/**
 * The keyed batches of one commit whose deletes show that their writer's key index did not know the
 * table: a batch that deletes a row the table deleted already, or a row another writer's batch of
 * the same commit deletes too. Either means a key whose rows two writers changed (a key that came
 * from two Kafka partitions, an index older than another writer's commit): folding the positions in
 * would leave a second row of the key live (each batch adds the key's new row). Such a batch is
 * rejected; its task reads its index again and writes the records again, and its change then
 * replaces the other writer's row.
 */
final class StalePositions {
  private StalePositions() {}

  /** One batch's deletes of one data file, with the writer they come from. */
  private record Deletes(long writer, PositionDeleteIndex positions) {}

  /**
   * Why each stale batch of {@code byBatch} (batch id to data file to positions, in commit order)
   * cannot be committed, by batch id; {@code writers} gives each batch's writer, {@code applied}
   * the table's deletes of each data file.
   */
  static Map<String, String> of(
      Map<String, Map<String, PositionDeleteIndex>> byBatch,
      Map<String, Long> writers,
      Map<String, PositionDeleteIndex> applied) {
    Map<String, String> stale = new LinkedHashMap<>();
    Map<String, List<Deletes>> earlier = new HashMap<>();
    byBatch.forEach(
        (batch, positions) -> {
          long writer = writers.getOrDefault(batch, -1L);
          String why = null;
          for (Map.Entry<String, PositionDeleteIndex> e : positions.entrySet()) {
            why = why != null ? why : problem(e.getKey(), e.getValue(), writer, applied, earlier);
          }
          if (why != null) {
            stale.put(batch, why);
            return; // its deletes do not count against later batches
          }
          positions.forEach(
              (path, index) ->
                  earlier
                      .computeIfAbsent(path, p -> new ArrayList<>())
                      .add(new Deletes(writer, index)));
        });
    return stale;
  }

  private static String problem(
      String path,
      PositionDeleteIndex positions,
      long writer,
      Map<String, PositionDeleteIndex> applied,
      Map<String, List<Deletes>> earlier) {
    PositionDeleteIndex deleted = applied.get(path);
    long[] hit = {-1, -1};
    positions.forEach(
        pos -> {
          if (hit[0] >= 0) {
            return;
          }
          if (deleted != null && deleted.isDeleted(pos)) {
            hit[0] = pos;
            hit[1] = 0;
            return;
          }
          for (Deletes other : earlier.getOrDefault(path, List.of())) {
            if (other.writer() != writer && other.positions().isDeleted(pos)) {
              hit[0] = pos;
              hit[1] = 1;
              return;
            }
          }
        });
    if (hit[0] < 0) {
      return null;
    }
    return "it deletes row "
        + hit[0]
        + " of data file "
        + path
        + (hit[1] == 0
            ? ", which the table deleted already"
            : ", which another writer's batch of this commit deletes too")
        + ": its key index did not know the table's rows of that key (a key on two Kafka"
        + " partitions, or another writer's commit)";
  }
}
