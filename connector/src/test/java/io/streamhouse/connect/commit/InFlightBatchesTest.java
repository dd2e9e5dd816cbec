package io.streamhouse.connect.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.testing.SlowClosingFormat;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class InFlightBatchesTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TableId TABLE = new TableId("c", List.of("ns"), "t");

  private static TableWriters.Detached detached(long from, long to) {
    return new TableWriters.Detached(
        TABLE, Map.of(P0, new OffsetRange(from, to)), -1, () -> files(to - from));
  }

  private static PreparedFiles files(long records) {
    return new PreparedFiles(1, new byte[] {1}, 1, records, records * 10);
  }

  @Test
  void batchesAreOfferedInTheOrderTheyWereCutWhicheverClosedFirst() {
    InFlightBatches batches = new InFlightBatches("conn", 0, Map.of("c", new SlowClosingFormat()));
    InFlightBatches.Preparing cutAhead = batches.preparing(List.of(detached(0, 10))).get(0);
    InFlightBatches.Preparing handedIn = batches.preparing(List.of(detached(10, 20))).get(0);

    batches.closed(handedIn, files(10)); // the hand-over's batch closes before the one cut ahead
    assertThat(batches.offerable()).as("the earlier batch is still closing").isEmpty();
    batches.closed(cutAhead, files(10));

    assertThat(batches.offerable())
        .extracting(p -> p.batch().batchId())
        .as("a coordinator that takes a prefix of the answer never gets [10, 20) without [0, 10)")
        .containsExactly(cutAhead.batchId(), handedIn.batchId());
  }
}
