package io.streamhouse.connect.commit.task;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class RewindLedgerTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final TopicPartition P1 = new TopicPartition("t", 1);

  @Test
  void aRewindCountsWhatIsReadAgainAndHoldsOffsetsBackUntilARecordOfThePartitionArrives() {
    RewindLedger ledger = new RewindLedger();
    ledger.assigned(List.of(P0, P1));
    Rewind rewind = ledger.rewind(Map.of(P0, 5L, P1, 7L), Map.of(P0, 10L, P1, 7L));
    assertThat(rewind.positions()).containsExactlyInAnyOrderEntriesOf(Map.of(P0, 5L, P1, 7L));
    assertThat(rewind.offsetsReadAgain()).isEqualTo(5);
    assertThat(ledger.rewoundOffsets()).isEqualTo(5);

    Map<TopicPartition, Long> offsets = new HashMap<>(Map.of(P0, 10L, P1, 9L));
    ledger.holdBack(offsets);
    assertThat(offsets).containsEntry(P0, 5L).containsEntry(P1, 7L);

    ledger.arrived(P0);
    offsets = new HashMap<>(Map.of(P0, 10L, P1, 9L));
    ledger.holdBack(offsets);
    assertThat(offsets).containsEntry(P0, 10L).containsEntry(P1, 7L);
  }

  @Test
  void aRevokedPartitionIsCountedButNotRewound() {
    RewindLedger ledger = new RewindLedger();
    ledger.assigned(List.of(P0, P1));
    ledger.revoked(List.of(P1));
    Rewind rewind = ledger.rewind(Map.of(P0, 5L, P1, 3L), Map.of(P0, 5L, P1, 9L));
    assertThat(rewind.positions()).containsOnlyKeys(P0);
    assertThat(rewind.offsetsReadAgain()).isEqualTo(6);
    assertThat(ledger.rewoundOffsets()).as("the next owner reads them again").isEqualTo(6);
    assertThat(ledger.assignedPartitions()).containsExactly(P0);
  }
}
