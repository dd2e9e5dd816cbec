package io.streamhouse.connect.table.paimon;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.DetachedFiles;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.junit.jupiter.api.Test;

/**
 * A task's Paimon writers: a detach hands a batch's files over while the writer writes on (a key's
 * later write still wins, the writes stay write-only, files discarded after an abort are deleted),
 * and the tables of one task share one write buffer that spills instead of growing.
 */
class PaimonWritersTest extends ItemsTableFixture {
  @Test
  void manyTablesInOneTaskShareOneWriteBufferThatSpillsInsteadOfGrowing() throws Exception {
    StreamhouseSinkConfig config = config(Map.of("route.items.table", "db.${topic}"));
    long pool = 8L << 20;
    try (PaimonFormat format =
        new PaimonFormat(
            config.catalog("lake"), config.connectorName(), pool, dir.resolve("spill"))) {
      RouteSettings route = config.routes().get(0);
      List<TableWriter> writers = new ArrayList<>();
      String padding = "x".repeat(200);
      for (int t = 0; t < 12; t++) {
        TableId id = new TableId("lake", List.of("db"), "items_" + t);
        SinkRecord first = upsert(0, 0, 0, padding, null);
        TableWriter writer =
            format.openWriter(id, route, first, new FileBudget(4, 64L << 20)).orElseThrow();
        for (long i = 0; i < 4_000; i++) {
          writer.write(upsert(0, i, i, padding + i, null));
        }
        writers.add(writer);
      }
      assertThat(format.writeBuffer().totalBytes()).isLessThanOrEqualTo(pool);
      assertThat(format.writeBuffer().usedBytes()).isLessThanOrEqualTo(pool);
      assertThat(format.writeBuffer().preemptions())
          .as("buffers flushed to make room")
          .isPositive();
      for (int t = 0; t < 12; t++) {
        TableId id = new TableId("lake", List.of("db"), "items_" + t);
        PreparedFiles files = writers.get(t).prepare();
        writers.get(t).close();
        Map<TopicPartition, OffsetRange> ranges =
            Map.of(new TopicPartition("items", 0), new OffsetRange(0, 4_000));
        format.commit(id, 1000, List.of(new OfferedBatch("b" + t, t, ranges, files, -1)), true);
        assertThat(rows(format.table(id))).hasSize(4_000).containsEntry(3_999L, padding + 3_999);
      }
    }
  }

  /**
   * A key written again after a detach numbers above its earlier write, whose files close later (on
   * the control thread, while the put thread writes on): committed in the protocol's order (the
   * detached batch first), the later value wins, in every bucket, also in a bucket the middle batch
   * did not touch.
   */
  @Test
  void aKeyWrittenAgainAfterADetachBeatsItsEarlierWriteWhoseFilesCloseLater() throws Exception {
    StreamhouseSinkConfig config = config(Map.of("route.items.buckets", "4"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      TableWriter writer =
          format
              .openWriter(table, route, upsert(0, 0, 1, "v1", null), new FileBudget(8, 64L << 20))
              .orElseThrow();
      long offset = 0;
      for (long key = 0; key < 40; key++) {
        writer.write(upsert(0, offset++, key, "v1-" + key, null));
      }
      long firstEnd = offset;
      DetachedFiles first = writer.detach();
      writer.write(upsert(0, offset++, 100, "other", null)); // one bucket only
      long secondEnd = offset;
      DetachedFiles second = writer.detach();
      Map<Long, String> model = new TreeMap<>(Map.of(100L, "other"));
      for (long key = 0; key < 40; key++) {
        writer.write(upsert(0, offset++, key, "v2-" + key, null));
        model.put(key, "v2-" + key);
      }
      PreparedFiles third = writer.detach().close();
      PreparedFiles secondFiles = second.close();
      PreparedFiles firstFiles = first.close(); // the earliest files close last
      writer.close();

      TopicPartition tp = new TopicPartition("items", 0);
      List<OfferedBatch> inOrder =
          List.of(
              new OfferedBatch("b1", 0, Map.of(tp, new OffsetRange(0, firstEnd)), firstFiles, -1),
              new OfferedBatch(
                  "b2", 0, Map.of(tp, new OffsetRange(firstEnd, secondEnd)), secondFiles, -1),
              new OfferedBatch("b3", 0, Map.of(tp, new OffsetRange(secondEnd, offset)), third, -1));
      long commitId = 1000;
      for (OfferedBatch batch : inOrder) {
        assertThat(format.commit(table, commitId++, List.of(batch), true).decisions())
            .containsEntry(batch.batchId(), BatchPlan.Decision.APPLY);
      }
      assertThat(firstFiles.files()).as("the first batch touched every bucket").isEqualTo(4);
      assertThat(rows(format.table(table))).isEqualTo(model);
    }
  }

  /**
   * A reset between a detach and the close of the detached files (a rebalance, a rejected batch):
   * the files still close, and discarding them deletes them; the table never sees them.
   */
  @Test
  void detachedFilesDiscardedAfterTheWriterWasAbortedAreDeleted() throws Exception {
    StreamhouseSinkConfig config = config(Map.of());
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      TableWriter writer =
          format
              .openWriter(table, route, upsert(0, 0, 1, "a", null), new FileBudget(8, 64L << 20))
              .orElseThrow();
      writer.write(upsert(0, 0, 1, "a", null));
      writer.write(upsert(0, 1, 2, "b", null));
      DetachedFiles detached = writer.detach();
      writer.write(upsert(0, 2, 3, "c", null));
      writer.abort();
      Path tablePath = dir.resolve("warehouse").resolve("db.db").resolve("items");
      PreparedFiles files = detached.close();
      assertThat(files.files()).isPositive();
      assertThat(dataFiles(tablePath)).hasSize(files.files());

      format.discard(table, List.of(files));

      assertThat(dataFiles(tablePath)).isEmpty();
      assertThat(format.table(table).snapshotManager().latestSnapshotId()).isNull();
      assertThat(format.writeBuffer().usedBytes()).as("every page back").isZero();
    }
  }

  /**
   * The writes that replace a detached one are write-only too: a bucket with more level-0 files
   * than Paimon's stop trigger is not compacted by the task (the coordinator hands compaction out).
   */
  @Test
  void writesAfterADetachStayWriteOnly() throws Exception {
    StreamhouseSinkConfig config = config(Map.of("route.items.buckets", "1"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      TopicPartition tp = new TopicPartition("items", 0);
      for (long round = 0; round < 9; round++) {
        OfferedBatch batch = batch(format, route, List.of(upsert(0, round, round, "r", null)));
        format.commit(table, 1000 + round, List.of(batch), true);
      }
      TableWriter writer =
          format
              .openWriter(table, route, upsert(0, 9, 1, "x", null), new FileBudget(8, 64L << 20))
              .orElseThrow();
      writer.write(upsert(0, 9, 1, "x", null));
      PreparedFiles first = writer.detach().close();
      writer.write(upsert(0, 10, 2, "y", null));
      PreparedFiles second = writer.detach().close();
      writer.close();
      for (PreparedFiles files : List.of(first, second)) {
        assertThat(CommitMessagesCodec.decode(files.payloadVersion(), files.payload()))
            .singleElement()
            .satisfies(
                m -> assertThat(((CommitMessageImpl) m).compactIncrement().isEmpty()).isTrue());
      }
      format.commit(
          table,
          2000,
          List.of(
              new OfferedBatch("b1", 0, Map.of(tp, new OffsetRange(9, 10)), first, -1),
              new OfferedBatch("b2", 0, Map.of(tp, new OffsetRange(10, 11)), second, -1)),
          true);
      assertThat(rows(format.table(table))).containsEntry(1L, "x").containsEntry(2L, "y");
    }
  }

  private static List<Path> dataFiles(Path tablePath) throws Exception {
    return filesUnder(tablePath).stream()
        .filter(p -> p.getFileName().toString().startsWith("data-"))
        .toList();
  }
}
