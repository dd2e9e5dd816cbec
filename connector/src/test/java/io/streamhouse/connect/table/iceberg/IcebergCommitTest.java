package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.WriteAfter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's commit of Iceberg append batches: partitioned files land once with their
 * watermarks, also when a batch is offered twice or another committer races, after the Apache sink
 * of the same name committed, and right after a batch a partition's last owner handed in.
 */
class IcebergCommitTest extends AppendTableFixture {
  @Test
  void writesPartitionedFilesAndCommitsThemWithTheirWatermarks() throws Exception {
    try (IcebergFormat format = format()) {
      PreparedFiles files = write(format, 0, 100, new FileBudget(64, 64L << 20));
      assertThat(files.records()).isEqualTo(100);
      assertThat(files.files()).isGreaterThan(4);
      CommitOutcome outcome = format.commit(table, 7L, List.of(batch("b1", 0, 100, files)), true);
      assertThat(outcome.decisions()).containsEntry("b1", BatchPlan.Decision.APPLY);
      assertThat(outcome.records()).isEqualTo(100);
      assertThat(ids(format)).hasSize(100).doesNotHaveDuplicates();
      assertThat(format.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 100L));
      Map<String, String> summary = format.table(table).currentSnapshot().summary();
      assertThat(summary)
          .containsEntry("streamhouse.test-sink.watermarks", "orders:0=100")
          .containsEntry("streamhouse.test-sink.commit-id", "7");
      assertThat(format.table(table).spec().fields()).hasSize(2);
      assertThat(format.table(table).io())
          .as("a local warehouse needs no Hadoop (no chmod process per file)")
          .isInstanceOf(LocalFileIO.class);
    }
  }

  @Test
  void afterTheApacheSinkOfTheSameNameCommittedTheTableContinuesWhereConnectsOffsetsSay()
      throws Exception {
    try (IcebergFormat format = format()) {
      commitRounds(format, 2); // ours: offsets 0-19
      Table t = format.table(table);
      // Another connector's Apache sink: it says nothing about ours.
      t.newFastAppend()
          .set("kafka.connect.commit-id", "c1")
          .set("kafka.connect.offsets.control-iceberg.connect-other", "{\"0\":5}")
          .commit();
      PreparedFiles ahead = write(format, 50, 60, new FileBudget(64, 64L << 20));
      assertThat(format.commit(table, 3L, List.of(batch("ahead", 50, 60, ahead)), true).decisions())
          .as("a gap after the connector's own watermark")
          .containsEntry("ahead", BatchPlan.Decision.REJECT);
      // The Apache sink under this connector's name consumed offsets 20-49 in between.
      t.newFastAppend()
          .set("kafka.connect.commit-id", "c2")
          .set("kafka.connect.offsets.control-iceberg.connect-test-sink", "{\"0\":7}")
          .commit();
      assertThat(format.watermarks(table).asMap()).isEmpty();
      PreparedFiles again = write(format, 50, 60, new FileBudget(64, 64L << 20));
      assertThat(format.commit(table, 4L, List.of(batch("again", 50, 60, again)), true).decisions())
          .containsEntry("again", BatchPlan.Decision.APPLY);
      assertThat(format.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 60L));
    }
  }

  /**
   * A task taking over partitions writes right after another task's batch that is not decided yet
   * (docs/architecture.md, "Reading on after a hand-in"): the coordinator commits the batch first,
   * then what the next owner wrote after it. Files that cannot be read are not read on after.
   */
  @Test
  void aNextOwnerWritesRightAfterAnUndecidedAppendBatchButNotAfterFilesItCannotRead()
      throws Exception {
    try (IcebergFormat last = format();
        IcebergFormat next =
            new IcebergFormat(config.catalog("local"), config.connectorName(), 1)) {
      PreparedFiles handedIn = write(last, 0, 50, new FileBudget(64, 64L << 20));
      assertThat(next.writeAfter(table, handedIn)).contains(WriteAfter.NOTHING);
      PreparedFiles after = write(next, 50, 80, new FileBudget(64, 64L << 20));
      CommitOutcome outcome =
          last.commit(
              table,
              1L,
              List.of(
                  batch("handed-in", 0, 50, handedIn),
                  new OfferedBatch("after", 1, Map.of(TP0, new OffsetRange(50, 80)), after, 0L)),
              true);
      assertThat(outcome.decisions())
          .containsEntry("handed-in", BatchPlan.Decision.APPLY)
          .containsEntry("after", BatchPlan.Decision.APPLY);
      assertThat(ids(last)).hasSize(80).doesNotHaveDuplicates();
      assertThat(last.watermarks(table).asMap()).containsExactly(Map.entry(TP0, 80L));

      byte[] cut = java.util.Arrays.copyOf(handedIn.payload(), handedIn.payload().length / 2);
      assertThat(next.writeAfter(table, files(handedIn.payloadVersion(), cut, handedIn))).isEmpty();
      assertThat(
              next.writeAfter(table, files(KeyedFilesCodec.VERSION, handedIn.payload(), handedIn)))
          .as("a keyed table's batch: the next owner's key index would not know its rows")
          .isEmpty();
      assertThat(next.writeAfter(new TableId("local", List.of("default"), "missing"), handedIn))
          .isEmpty();
    }
  }

  private static PreparedFiles files(int version, byte[] payload, PreparedFiles like) {
    return new PreparedFiles(version, payload, like.files(), like.records(), like.bytes());
  }

  @Test
  void aBatchOfferedTwiceLandsOnce() throws Exception {
    try (IcebergFormat format = format()) {
      PreparedFiles files = write(format, 0, 50, new FileBudget(64, 64L << 20));
      format.commit(table, 1L, List.of(batch("b1", 0, 50, files)), true);
      CommitOutcome again = format.commit(table, 2L, List.of(batch("b1", 0, 50, files)), true);
      assertThat(again.decisions()).containsEntry("b1", BatchPlan.Decision.ALREADY_PRESENT);
      assertThat(again.snapshotId()).isEmpty();
      assertThat(ids(format)).hasSize(50);
    }
  }

  @Test
  void twoCommittersRacingOnOneTableNeverDuplicate() throws Exception {
    try (IcebergFormat a = format();
        IcebergFormat b = format()) {
      PreparedFiles first = write(a, 0, 40, new FileBudget(64, 64L << 20));
      a.commit(table, 1L, List.of(batch("first", 0, 40, first)), true);
      PreparedFiles fromA = write(a, 40, 80, new FileBudget(64, 64L << 20));
      PreparedFiles fromB =
          write(b, 40, 90, new FileBudget(64, 64L << 20)); // a zombie's overlapping batch
      CompletableFuture<CommitOutcome> ca =
          CompletableFuture.supplyAsync(
              () -> a.commit(table, 2L, List.of(batch("a", 40, 80, fromA)), true));
      CompletableFuture<CommitOutcome> cb =
          CompletableFuture.supplyAsync(
              () -> b.commit(table, 3L, List.of(batch("b", 40, 90, fromB)), true));
      List<BatchPlan.Decision> decisions =
          List.of(
              ca.join().decisions().values().iterator().next(),
              cb.join().decisions().values().iterator().next());
      // Exactly one applies; the other is rejected (a applied first) or already present (b first).
      assertThat(decisions).containsOnlyOnce(BatchPlan.Decision.APPLY).doesNotHaveDuplicates();
      List<Long> ids = ids(a);
      assertThat(ids).doesNotHaveDuplicates().hasSizeBetween(80, 90);
      long end = a.watermarks(table).of(TP0).orElseThrow();
      assertThat(ids).hasSize((int) end);
    }
  }
}
