package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Which task's keyed batches claim their rows first turns with the commit id. */
class WriterTurnsTest {
  private static final PreparedFiles FILES = new PreparedFiles(3, new byte[0], 0, 0, 0);

  private final Map<String, KeyedFilesCodec.KeyedFiles> keyed = new HashMap<>();

  private OfferedBatch batch(String id, int task, int partition, long from, long to) {
    keyed.put(id, null); // only whether a batch is keyed counts
    return new OfferedBatch(
        id, task, Map.of(new TopicPartition("t", partition), new OffsetRange(from, to)), FILES, 0);
  }

  @Test
  void eachOfThreeTasksGoesFirstInEveryThirdCommitAndKeepsTheOrderOfItsBatches() {
    List<OfferedBatch> offered =
        List.of(
            batch("a1", 0, 0, 0, 5),
            batch("c", 2, 2, 0, 5),
            batch("a2", 0, 0, 5, 9),
            batch("b", 1, 1, 0, 5));

    assertThat(ids(WriterTurns.order(offered, keyed, 3))).containsExactly("a1", "a2", "b", "c");
    assertThat(ids(WriterTurns.order(offered, keyed, 4))).containsExactly("b", "c", "a1", "a2");
    assertThat(ids(WriterTurns.order(offered, keyed, 5))).containsExactly("c", "a1", "a2", "b");
  }

  @Test
  void batchesOfTwoTasksOnOnePartitionKeepTheOrderOffered() {
    // A hand-over: the new owner's range follows the old owner's and must come after it.
    List<OfferedBatch> offered = List.of(batch("old", 0, 0, 0, 5), batch("new", 1, 0, 5, 9));

    assertThat(ids(WriterTurns.order(offered, keyed, 1))).containsExactly("old", "new");
  }

  @Test
  void batchesOfAnAppendTableKeepTheOrderOffered() {
    List<OfferedBatch> offered = List.of(batch("x", 0, 0, 0, 5), batch("y", 1, 1, 0, 5));
    keyed.clear();

    assertThat(ids(WriterTurns.order(offered, keyed, 1))).containsExactly("x", "y");
  }

  private static List<String> ids(List<OfferedBatch> batches) {
    return batches.stream().map(OfferedBatch::batchId).toList();
  }
}
