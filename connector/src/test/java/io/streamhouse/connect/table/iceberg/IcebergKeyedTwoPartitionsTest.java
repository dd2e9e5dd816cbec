package io.streamhouse.connect.table.iceberg;

import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.TABLE;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.commitOne;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.rows;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.tombstone;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.upsert;
import static io.streamhouse.connect.table.iceberg.KeyedTableFixture.writer;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.table.TableWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Records of one key on two Kafka partitions, written by two tasks of the connector
 * (docs/iceberg-primary-key-tables.md, "Keys on two partitions"): partitions added to a topic, a
 * producer keyed by another field, upserts without a Kafka key. Whatever order the two writers'
 * batches come in, the table never holds the key twice and never keeps a row a later change
 * replaced: a writer reads the rows the other committed before it prepares, and two batches that
 * both change a key neither had seen are never committed together.
 */
class IcebergKeyedTwoPartitionsTest {
  private static final TopicPartition TP0 = new TopicPartition("orders", 0);
  private static final TopicPartition TP1 = new TopicPartition("orders", 1);

  @TempDir Path dir;

  private final Map<Long, String> model = new TreeMap<>();

  /** Keys 0..9 from partition 0's offsets [0, 10). */
  private void seed(IcebergFormat format, StreamhouseSinkConfig config) throws Exception {
    TableWriter writer = writer(format, config);
    for (long id = 0; id < 10; id++) {
      writer.write(upsert(0, id, id, "s" + id));
      model.put(id, "s" + id);
    }
    assertThat(commitOne(format, 1, TP0, 0, 10, writer.prepare()))
        .isEqualTo(BatchPlan.Decision.APPLY);
    writer.close();
  }

  private static OfferedBatch batch(
      String id, int task, TopicPartition tp, long from, long to, PreparedFiles files) {
    return new OfferedBatch(id, task, Map.of(tp, new OffsetRange(from, to)), files, 0);
  }

  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void twoWritersInsertingOneNewKeyInOneCommitCommitOnlyOne(int formatVersion) throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config);
      TableWriter first = writer(format, config);
      TableWriter second = writer(format, config);
      first.write(upsert(1, 0, 100, "p1"));
      first.write(upsert(1, 1, 3, "p1-3")); // a key both know: no clash on its own
      second.write(upsert(0, 10, 100, "p0"));
      Map<String, BatchPlan.Decision> decisions =
          format
              .commit(
                  TABLE,
                  3, // odd: task 1 goes first (WriterTurns)
                  List.of(
                      batch("first", 1, TP1, 0, 2, first.prepare()),
                      batch("second", 0, TP0, 10, 11, second.prepare())),
                  true)
              .decisions();
      assertThat(decisions)
          .containsEntry("first", BatchPlan.Decision.APPLY)
          .containsEntry("second", BatchPlan.Decision.REJECT);
      model.put(100L, "p1");
      model.put(3L, "p1-3");
      assertThat(rows(format.table(TABLE))).isEqualTo(model);

      // The rejected task starts over: its new index holds the other task's row, which it replaces.
      TableWriter replay = writer(format, config);
      replay.write(upsert(0, 10, 100, "p0"));
      assertThat(commitOne(format, 4, TP0, 10, 11, replay.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      model.put(100L, "p0");
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      first.close();
      second.close();
      replay.close();
    }
  }

  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void aTombstoneOfAKeyAnotherWriterInsertsInTheSameCommitIsNotLost(int formatVersion)
      throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config);
      TableWriter inserter = writer(format, config);
      TableWriter deleter = writer(format, config);
      inserter.write(upsert(1, 0, 200, "new"));
      deleter.write(tombstone(0, 10, 200));
      Map<String, BatchPlan.Decision> decisions =
          format
              .commit(
                  TABLE,
                  3, // odd: task 1 goes first (WriterTurns)
                  List.of(
                      batch("insert", 1, TP1, 0, 1, inserter.prepare()),
                      batch("delete", 0, TP0, 10, 11, deleter.prepare())),
                  true)
              .decisions();
      assertThat(decisions)
          .containsEntry("insert", BatchPlan.Decision.APPLY)
          .containsEntry("delete", BatchPlan.Decision.REJECT);
      model.put(200L, "new");
      assertThat(rows(format.table(TABLE))).isEqualTo(model);

      TableWriter replay = writer(format, config);
      replay.write(tombstone(0, 10, 200));
      assertThat(commitOne(format, 4, TP0, 10, 11, replay.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      model.remove(200L);
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      inserter.close();
      deleter.close();
      replay.close();
    }
  }

  /**
   * Which of two tasks' clashing batches commits turns with the commit id, whatever order they were
   * offered in: with keys spread over partitions at random, no task's batches are rejected round
   * after round.
   */
  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void theTaskWhoseBatchGoesFirstTurnsWithTheCommit(int formatVersion) throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config);
      long[] next = {10, 0}; // per partition: where the table continues
      for (long commit = 2; commit <= 3; commit++) {
        long key = 100 + commit;
        TableWriter task0 = writer(format, config);
        TableWriter task1 = writer(format, config);
        task0.write(upsert(0, next[0], key, "task0"));
        task1.write(upsert(1, next[1], key, "task1"));
        Map<String, BatchPlan.Decision> decisions =
            format
                .commit(
                    TABLE,
                    commit,
                    List.of(
                        batch("task1-" + commit, 1, TP1, next[1], next[1] + 1, task1.prepare()),
                        batch("task0-" + commit, 0, TP0, next[0], next[0] + 1, task0.prepare())),
                    true)
                .decisions();
        String winner = commit % 2 == 0 ? "task0" : "task1";
        String loser = commit % 2 == 0 ? "task1" : "task0";
        assertThat(decisions)
            .containsEntry(winner + "-" + commit, BatchPlan.Decision.APPLY)
            .containsEntry(loser + "-" + commit, BatchPlan.Decision.REJECT);
        model.put(key, winner);
        next[(int) (commit % 2)]++;
        assertThat(rows(format.table(TABLE))).isEqualTo(model);
        task0.close();
        task1.close();
      }
    }
  }

  /**
   * A writer whose index was read before another writer committed a key reads that writer's rows
   * when it prepares: a key it inserted or deleted without knowing a row of it replaces the other's
   * row (nothing rejected), while a change through a row the other writer replaced is rejected and
   * written again.
   */
  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void aWriterFollowsTheKeysAnotherWriterCommittedBeforeItPrepares(int formatVersion)
      throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config);
      TableWriter early = writer(format, config);
      TableWriter other = writer(format, config);
      other.write(upsert(1, 0, 300, "other"));
      other.write(upsert(1, 1, 301, "other"));
      other.write(upsert(1, 2, 4, "other-4"));
      assertThat(commitOne(format, 2, TP1, 0, 3, other.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      early.write(upsert(0, 10, 300, "early"));
      early.write(tombstone(0, 11, 301));
      early.write(upsert(0, 12, 4, "early-4"));
      assertThat(commitOne(format, 3, TP0, 10, 13, early.prepare()))
          .isEqualTo(BatchPlan.Decision.REJECT); // its delete of key 4's first row is stale
      TableWriter replay = writer(format, config);
      replay.write(upsert(0, 10, 300, "early"));
      replay.write(tombstone(0, 11, 301));
      assertThat(commitOne(format, 4, TP0, 10, 12, replay.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);

      // The index of a writer that keeps going follows the other writer's rows round after round.
      other.write(upsert(1, 3, 302, "other"));
      assertThat(commitOne(format, 5, TP1, 3, 4, other.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      replay.write(upsert(0, 12, 302, "replay"));
      replay.write(upsert(0, 13, 4, "replay-4"));
      assertThat(commitOne(format, 6, TP0, 12, 14, replay.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      model.put(300L, "early");
      model.put(302L, "replay");
      model.put(4L, "replay-4");
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      early.close();
      other.close();
      replay.close();
    }
  }

  /**
   * A batch prepared before another writer's commit of a key it inserted too (the round before was
   * being committed) is rejected by the coordinator that committed it; a coordinator that did not
   * commit it (a new one) cannot tell which keys it holds and rejects it as well.
   */
  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void aBatchPreparedBeforeAnotherWritersCommitOfItsNewKeyIsRejected(int formatVersion)
      throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config);
      TableWriter first = writer(format, config);
      TableWriter second = writer(format, config);
      TableWriter third = writer(format, config);
      first.write(upsert(1, 0, 400, "first"));
      second.write(upsert(0, 10, 400, "second"));
      third.write(upsert(2, 0, 500, "third"));
      PreparedFiles secondFiles = second.prepare();
      PreparedFiles thirdFiles = third.prepare();
      assertThat(commitOne(format, 2, TP1, 0, 1, first.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      assertThat(commitOne(format, 3, TP0, 10, 11, secondFiles))
          .isEqualTo(BatchPlan.Decision.REJECT);
      model.put(400L, "first");
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      try (IcebergFormat restarted = new IcebergFormat(config.catalog("local"), "c", 0)) {
        assertThat(commitOne(restarted, 4, new TopicPartition("orders", 2), 0, 1, thirdFiles))
            .isEqualTo(BatchPlan.Decision.REJECT);
      }
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      first.close();
      second.close();
      third.close();
    }
  }

  /**
   * A batch prepared before another writer replaced a row it deletes, offered after a compaction
   * dropped that row: the coordinator moves the batch's deletes with the compaction's map, finds
   * the row gone, and rejects the batch (folding the rest in would leave the other writer's row of
   * the key live beside the batch's).
   */
  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void aBatchDeletingARowACompactionDroppedSinceItsIndexWasReadIsRejected(int formatVersion)
      throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config);
      TableWriter late = writer(format, config);
      TableWriter other = writer(format, config);
      late.write(upsert(0, 10, 5, "late"));
      PreparedFiles lateFiles = late.prepare();
      other.write(upsert(1, 0, 5, "other"));
      assertThat(commitOne(format, 2, TP1, 0, 1, other.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      KeyedTableFixture.compact(format);
      assertThat(commitOne(format, 3, TP0, 10, 11, lateFiles)).isEqualTo(BatchPlan.Decision.REJECT);
      model.put(5L, "other");
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      late.close();
      other.close();
    }
  }

  /**
   * A writer prepares its next batch before its previous one is committed (the task cuts batches
   * ahead), after a compaction moved a row that previous batch deletes and while another writer
   * commits too: reading the compaction's output, the writer sees that row live but knows it as its
   * own key's older row, not another writer's, and both batches commit.
   */
  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void aBatchPreparedBeforeItsWritersPreviousOneCommitsIsNotRejectedAfterACompaction(
      int formatVersion) throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config);
      TableWriter writer = writer(format, config);
      TableWriter other = writer(format, config);
      PreparedFiles first = firstBatchThenACompaction(format, writer, other);
      writer.write(upsert(0, 12, 1, "second"));
      PreparedFiles second = writer.prepare(); // key 1's seeded row, compacted, still live
      assertThat(commitOne(format, 4, TP0, 11, 12, first)).isEqualTo(BatchPlan.Decision.APPLY);
      assertThat(commitOne(format, 5, TP0, 12, 13, second)).isEqualTo(BatchPlan.Decision.APPLY);
      model.putAll(Map.of(1L, "second", 2L, "two", 100L, "other"));
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      writer.close();
      other.close();
    }
  }

  /**
   * One writer alone, batches cut ahead of their commits, the table compacted between every two:
   * its own files, compacted away, are still known as its own, so nothing of its table is taken for
   * another task's rows and no batch is rejected.
   */
  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void aWriterAloneWithCompactionsBetweenItsBatchesIsNeverRejected(int formatVersion)
      throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config);
      TableWriter writer = writer(format, config);
      java.util.Random random = new java.util.Random(5);
      long offset = 10;
      PreparedFiles ahead = null;
      long aheadFrom = 0;
      for (int round = 0; round < 8; round++) {
        long from = offset;
        for (int i = 0; i < 20; i++) {
          long id = random.nextInt(10);
          writer.write(upsert(0, offset++, id, "r" + round + "-" + i));
          model.put(id, "r" + round + "-" + i);
        }
        PreparedFiles files = writer.prepare();
        if (ahead != null) {
          assertThat(commitOne(format, 10 + round, TP0, aheadFrom, from, ahead))
              .as("round %d", round)
              .isEqualTo(BatchPlan.Decision.APPLY);
          KeyedTableFixture.maintain(format);
        }
        ahead = files;
        aheadFrom = from;
      }
      assertThat(commitOne(format, 99, TP0, aheadFrom, offset, ahead))
          .isEqualTo(BatchPlan.Decision.APPLY);
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      writer.close();
    }
  }

  /**
   * As above, but the next batch changes another key: the compacted older row of the key the
   * previous batch (not committed yet) replaces does not take that key's place in the index, so a
   * later change of the key deletes the previous batch's row, not the older one again.
   */
  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void aCompactedOlderRowDoesNotTakeThePlaceOfTheWritersUncommittedRow(int formatVersion)
      throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config);
      TableWriter writer = writer(format, config);
      TableWriter other = writer(format, config);
      PreparedFiles first = firstBatchThenACompaction(format, writer, other);
      writer.write(upsert(0, 12, 3, "three"));
      PreparedFiles second = writer.prepare(); // reads the compacted seed, key 1's row live
      assertThat(commitOne(format, 4, TP0, 11, 12, first)).isEqualTo(BatchPlan.Decision.APPLY);
      assertThat(commitOne(format, 5, TP0, 12, 13, second)).isEqualTo(BatchPlan.Decision.APPLY);
      writer.write(upsert(0, 13, 1, "third"));
      assertThat(commitOne(format, 6, TP0, 13, 14, writer.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      model.putAll(Map.of(1L, "third", 2L, "two", 3L, "three", 100L, "other"));
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      writer.close();
      other.close();
    }
  }

  /**
   * Another writer's new key, committed and then compacted before this writer prepares: the
   * compaction's map says which output holds that writer's rows, the writer reads it there, and its
   * own insert of the key replaces that row.
   */
  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = {2, 3})
  void anotherWritersRowsCompactedBeforeTheWriterPreparesAreFoundInTheOutput(int formatVersion)
      throws Exception {
    StreamhouseSinkConfig config = KeyedTableFixture.config(dir, formatVersion);
    try (IcebergFormat format = new IcebergFormat(config.catalog("local"), "c", 0)) {
      seed(format, config);
      TableWriter writer = writer(format, config);
      TableWriter other = writer(format, config);
      other.write(upsert(1, 0, 200, "other-a"));
      other.write(upsert(1, 1, 200, "other-b")); // its own file gets a delete: compacted below
      assertThat(commitOne(format, 2, TP1, 0, 2, other.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      KeyedTableFixture.compact(format);
      writer.write(upsert(0, 10, 200, "writer"));
      assertThat(commitOne(format, 3, TP0, 10, 11, writer.prepare()))
          .isEqualTo(BatchPlan.Decision.APPLY);
      model.put(200L, "writer");
      assertThat(rows(format.table(TABLE))).isEqualTo(model);
      writer.close();
      other.close();
    }
  }

  /**
   * The start of the two cases above: {@code writer} commits key 2 (the seed's file gets a delete),
   * prepares a batch that replaces key 1's seeded row (returned, not committed), {@code other}
   * commits key 100, and the table is compacted, moving key 1's seeded row, still live.
   */
  private PreparedFiles firstBatchThenACompaction(
      IcebergFormat format, TableWriter writer, TableWriter other) throws Exception {
    writer.write(upsert(0, 10, 2, "two"));
    assertThat(commitOne(format, 2, TP0, 10, 11, writer.prepare()))
        .isEqualTo(BatchPlan.Decision.APPLY);
    writer.write(upsert(0, 11, 1, "first"));
    PreparedFiles first = writer.prepare();
    other.write(upsert(1, 0, 100, "other"));
    assertThat(commitOne(format, 3, TP1, 0, 1, other.prepare()))
        .isEqualTo(BatchPlan.Decision.APPLY);
    KeyedTableFixture.compact(format);
    return first;
  }
}
