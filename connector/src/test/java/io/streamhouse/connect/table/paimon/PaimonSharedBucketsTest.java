package io.streamhouse.connect.table.paimon;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.junit.jupiter.api.Test;

/**
 * Several tasks write the same Paimon buckets (Connect cannot route records by bucket): the row of
 * a key that wins, by the sequence field or by Kafka order across a moved partition, is the same
 * before and after a full compaction.
 */
class PaimonSharedBucketsTest extends ItemsTableFixture {
  @Test
  void twoTasksWritingTheSameBucketsInOneCommitGiveTheModelBeforeAndAfterFullCompaction()
      throws Exception {
    StreamhouseSinkConfig config =
        config(
            Map.of(
                "route.items.order-by", // the table's sequence.field
                "seq",
                "route.items.table-property.full-compaction.delta-commits",
                "1"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      List<SinkRecord> task0 = new ArrayList<>();
      List<SinkRecord> task1 = new ArrayList<>();
      Map<Long, String> model = new TreeMap<>();
      Map<Long, Long> modelSeq = new HashMap<>();
      for (long i = 0; i < 200; i++) {
        long key =
            i % 50; // both tasks write the same 50 keys: 2 buckets, so every bucket from both
        boolean first = i % 2 == 0;
        long seq = first ? i : 1000 - i; // task 1 carries the higher sequence for the early keys
        SinkRecord r = upsert(first ? 0 : 1, i / 2, key, "v" + i, seq);
        (first ? task0 : task1).add(r);
        if (seq >= modelSeq.getOrDefault(key, Long.MIN_VALUE)) {
          modelSeq.put(key, seq);
          model.put(key, "v" + i);
        }
      }
      OfferedBatch b0 = batch(format, route, task0);
      OfferedBatch b1 = batch(format, route, task1);
      CommitOutcome written = format.commit(table, 1000, List.of(b0, b1), true);
      assertThat(format.table(table).options()).containsEntry("sequence.field", "seq");
      assertThat(rows(format.table(table))).isEqualTo(model);
      // full-compaction.delta-commits=1: the commit hands out a full compaction of every touched
      // bucket; a task runs it and the coordinator commits its result in the next round.
      assertThat(written.compactions()).hasSize(2);
      assertThat(compact(format, written, 1001)).containsValue(BatchPlan.Decision.APPLY);
      FileStoreTable t = format.table(table);
      assertThat(rows(t)).isEqualTo(model);
      assertThat(t.snapshotManager().latestSnapshot().commitKind())
          .isEqualTo(Snapshot.CommitKind.COMPACT);
      assertThat(t.snapshotManager().latestSnapshot().properties())
          .containsEntry("streamhouse.test-sink.watermarks", "items:0=100,items:1=100");
      assertThat(new CoreOptions(t.options()).sequenceField()).containsExactly("seq");
    }
  }

  @Test
  void differentKeysFromTwoTasksInOneBucketAndTheSameKeyFromOnePartitionFollowKafkaOrder()
      throws Exception {
    StreamhouseSinkConfig config = oneBucketFullCompactionEvery(2);
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      // Keys determine partitions (0: even keys, 1: odd keys): each key has one writer per commit.
      List<SinkRecord> even = new ArrayList<>();
      List<SinkRecord> odd = new ArrayList<>();
      Map<Long, String> model = new TreeMap<>();
      for (long i = 0; i < 300; i++) {
        long key = i % 20;
        SinkRecord r = upsert((int) (key % 2), i, key, "v" + i, null);
        (key % 2 == 0 ? even : odd).add(r);
        model.put(key, "v" + i);
      }
      format.commit(
          table, 1000, List.of(batch(format, route, even), batch(format, route, odd)), true);
      assertThat(rows(format.table(table))).isEqualTo(model);
      // A rebalance moves partition 0 to another task: its new writer numbers above the committed
      // rows, so one later write of key 0 beats the 15 earlier ones.
      assertThat(format.watermarks(table).asMap())
          .containsEntry(new TopicPartition("items", 0), 299L);
      CommitOutcome moved =
          format.commit(
              table,
              2000,
              List.of(batch(format, route, List.of(upsert(0, 299, 0, "moved", null)))),
              true);
      assertThat(moved.decisions()).containsValue(BatchPlan.Decision.APPLY);
      model.put(0L, "moved");
      assertThat(rows(format.table(table))).isEqualTo(model);
      // The second commit also called for the full compaction (every 2 commits): one file, same
      // rows.
      compact(format, moved, 2001);
      FileStoreTable t = format.table(table);
      assertThat(rows(t)).isEqualTo(model);
      assertThat(t.snapshotManager().latestSnapshot().commitKind())
          .isEqualTo(Snapshot.CommitKind.COMPACT);
      assertThat(t.newSnapshotReader().read().dataSplits())
          .singleElement()
          .satisfies(split -> assertThat(split.dataFiles()).hasSize(1));
    }
  }
}
