package io.streamhouse.connect.table.paimon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's commit of Paimon batches: upserts and tombstones land once, with their
 * watermarks and rising commit identifiers, without the coordinator reading the table for duplicate
 * files; batches whose payload is not plain new files of the table are refused and left alone.
 */
class PaimonCommitTest extends ItemsTableFixture {
  @Test
  void batchesWhoseFilesAreNotPlainNewFilesOfTheTableAreRefusedAndLeftAlone() throws Exception {
    StreamhouseSinkConfig config = config(Map.of());
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      OfferedBatch real =
          batch(format, route, List.of(upsert(0, 0, 1, "a", null), upsert(0, 1, 2, "b", null)));
      List<OfferedBatch> bad =
          List.of(
              forged(real, "climbing", f -> f.rename("../../../elsewhere/" + f.fileName()), null),
              forged(
                  real,
                  "external",
                  f -> f.newExternalPath("file:/tmp/elsewhere/" + f.fileName()),
                  null),
              forged(real, "bucket", f -> f, 7),
              new OfferedBatch(
                  "garbage",
                  2,
                  real.ranges(),
                  new PreparedFiles(
                      CommitMessagesCodec.VERSION, new byte[] {0, 0, 0, 1, 9, 9, 9}, 1, 1, 1),
                  -1));
      for (OfferedBatch batch : bad) {
        CommitOutcome outcome = format.commit(table, 1000, List.of(batch), true);
        assertThat(outcome.decisions())
            .as(batch.batchId())
            .containsEntry(batch.batchId(), BatchPlan.Decision.REJECT);
        assertThat(outcome.refused()).as(batch.batchId()).containsExactly(batch.batchId());
        assertThat(format.table(table).snapshotManager().latestSnapshotId())
            .as(batch.batchId())
            .isNull();
      }
      CommitOutcome twice =
          format.commit(
              table,
              1000,
              List.of(real, new OfferedBatch("copy", 1, real.ranges(), real.files(), -1)),
              true);
      assertThat(twice.refused()).containsExactlyInAnyOrder(real.batchId(), "copy");

      CommitOutcome outcome = format.commit(table, 1000, List.of(real), true);
      assertThat(outcome.decisions()).containsEntry(real.batchId(), BatchPlan.Decision.APPLY);
      assertThat(rows(format.table(table)))
          .containsExactlyEntriesOf(new TreeMap<>(Map.of(1L, "a", 2L, "b")));
    }
  }

  /**
   * What the Paimon payload decoder refuses by itself: versions it does not read, message counts
   * the payload cannot hold, cuts and trailing bytes. It is not fed mutated rows: Paimon reads its
   * binary rows with unchecked memory access (a mutated one crashed the test JVM in
   * SimpleStats.fromRow), so a Paimon payload is decoded only once the event's MAC proved that a
   * task of the connector sent it.
   */
  @Test
  void commitMessagePayloadsThatDoNotFrameAreRefused() throws Exception {
    StreamhouseSinkConfig config = config(Map.of());
    try (PaimonFormat format = format(config)) {
      OfferedBatch real =
          batch(format, config.routes().get(0), List.of(upsert(0, 0, 1, "a", null)));
      byte[] payload = real.files().payload();
      int version = real.files().payloadVersion();
      List<byte[]> framing = new ArrayList<>();
      framing.add(new byte[0]);
      framing.add(java.util.Arrays.copyOf(payload, 3));
      framing.add(new byte[] {0x7f, -1, -1, -1, 0, 0, 0, 0});
      framing.add(new byte[] {-1, -1, -1, -1});
      framing.add(java.util.Arrays.copyOf(payload, payload.length + 5)); // trailing bytes
      for (int cut = 4; cut < Math.min(payload.length, 12); cut++) {
        framing.add(java.util.Arrays.copyOf(payload, cut)); // cut inside the first length field
      }
      for (byte[] input : framing) {
        assertThatThrownBy(() -> CommitMessagesCodec.decode(version, input))
            .isInstanceOf(CommitMessagesCodec.InvalidCommitMessagesException.class);
      }
      assertThatThrownBy(() -> CommitMessagesCodec.decode(version + 1, payload))
          .isInstanceOf(CommitMessagesCodec.InvalidCommitMessagesException.class)
          .hasMessageContaining("upgrade");
      assertThat(CommitMessagesCodec.decode(version, payload)).hasSize(1);
    }
  }

  @Test
  void upsertsAndTombstonesLandWithTheirWatermarksAndAnAlreadyPresentBatchIsNotAppliedTwice()
      throws Exception {
    StreamhouseSinkConfig config = config(Map.of());
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      OfferedBatch first =
          batch(
              format,
              route,
              List.of(
                  upsert(0, 0, 1, "a", null),
                  upsert(0, 1, 2, "b", null),
                  upsert(0, 2, 3, "c", null),
                  upsert(0, 3, 2, "b2", null),
                  tombstone(0, 4, 3)));
      CommitOutcome outcome = format.commit(table, 1000, List.of(first), true);
      assertThat(outcome.decisions()).containsValue(BatchPlan.Decision.APPLY);
      assertThat(rows(format.table(table)))
          .containsExactlyEntriesOf(new TreeMap<>(Map.of(1L, "a", 2L, "b2")));
      assertThat(format.watermarks(table).asMap())
          .containsEntry(new TopicPartition("items", 0), 5L);

      // The same batch offered again (the coordinator died before it said so): acknowledged, not
      // re-applied.
      CommitOutcome again = format.commit(table, 2000, List.of(first), true);
      assertThat(again.decisions())
          .containsExactlyEntriesOf(Map.of(first.batchId(), BatchPlan.Decision.ALREADY_PRESENT));
      assertThat(again.snapshotId()).isEmpty();

      OfferedBatch second =
          batch(format, route, List.of(upsert(0, 5, 1, "a2", null), tombstone(0, 6, 2)));
      format.commit(
          table, 1500, List.of(second), true); // an older commit id: the identifier still rises
      assertThat(rows(format.table(table))).containsExactlyEntriesOf(Map.of(1L, "a2"));
      List<Long> identifiers = new ArrayList<>();
      FileStoreTable t = format.table(table);
      for (long s = t.snapshotManager().earliestSnapshotId();
          s <= t.snapshotManager().latestSnapshotId();
          s++) {
        Snapshot snapshot = t.snapshotManager().snapshot(s);
        assertThat(snapshot.commitUser()).isEqualTo("streamhouse-test-sink");
        identifiers.add(snapshot.commitIdentifier());
      }
      assertThat(identifiers).isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
    }
  }

  /**
   * The coordinator's commits skip Paimon's read of the table for duplicate files (contiguity never
   * applies a batch twice: the test above), while the table keeps the option for other writers.
   */
  @Test
  void theCoordinatorsCommitCopyDoesNotReadTheTableForDuplicatesThatTheTableKeepsForOthers()
      throws Exception {
    StreamhouseSinkConfig config = config(Map.of());
    try (PaimonFormat format = format(config)) {
      OfferedBatch first =
          batch(format, config.routes().get(0), List.of(upsert(0, 0, 1, "a", null)));
      format.commit(table, 1000, List.of(first), true);
      CoordinatorTables.Loaded kept = format.coordinatorTable(table);
      assertThat(kept.table().coreOptions().commitDiscardDuplicateFiles()).isTrue();
      assertThat(kept.retryOff().coreOptions().commitDiscardDuplicateFiles()).isFalse();
      assertThat(format.commit(table, 2000, List.of(first), true).decisions())
          .containsExactlyEntriesOf(Map.of(first.batchId(), BatchPlan.Decision.ALREADY_PRESENT));
      assertThat(rows(format.table(table))).containsExactlyEntriesOf(Map.of(1L, "a"));
    }
  }
}
