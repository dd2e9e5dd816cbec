package io.streamhouse.connect.table.paimon;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.CompactionResult;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.testing.LocalCatalogConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Paimon table {@code db.items} of {@code (id, name, seq)}, primary key {@code id}, in a
 * filesystem catalog on local disk, fresh for each test: the records, writers, batches and readers
 * that the Paimon format's tests share by extending it.
 */
abstract class ItemsTableFixture {
  static final Schema KEY =
      SchemaBuilder.struct().name("Key").field("id", Schema.INT64_SCHEMA).build();

  static final Schema ROW =
      SchemaBuilder.struct()
          .name("Row")
          .field("id", Schema.INT64_SCHEMA)
          .field("name", Schema.OPTIONAL_STRING_SCHEMA)
          .field("seq", Schema.OPTIONAL_INT64_SCHEMA)
          .build();

  static final Schema ENVELOPE =
      SchemaBuilder.struct()
          .name("Envelope")
          .field(
              "before",
              SchemaBuilder.struct()
                  .name("Row")
                  .optional()
                  .field("id", Schema.INT64_SCHEMA)
                  .field("name", Schema.OPTIONAL_STRING_SCHEMA)
                  .field("seq", Schema.OPTIONAL_INT64_SCHEMA)
                  .build())
          .field(
              "after",
              SchemaBuilder.struct()
                  .name("Row")
                  .optional()
                  .field("id", Schema.INT64_SCHEMA)
                  .field("name", Schema.OPTIONAL_STRING_SCHEMA)
                  .field("seq", Schema.OPTIONAL_INT64_SCHEMA)
                  .build())
          .field("op", Schema.STRING_SCHEMA)
          .build();

  @TempDir Path dir;

  final TableId table = new TableId("lake", List.of("db"), "items");

  StreamhouseSinkConfig config(Map<String, String> extra) {
    Map<String, String> props = LocalCatalogConfigs.paimonItems(dir, extra);
    return new StreamhouseSinkConfig(props);
  }

  /** One bucket, a full compaction every {@code commits} commits. */
  StreamhouseSinkConfig oneBucketFullCompactionEvery(int commits) {
    return config(
        Map.of(
            "route.items.buckets",
            "1",
            "route.items.table-property.full-compaction.delta-commits",
            Integer.toString(commits)));
  }

  PaimonFormat format(StreamhouseSinkConfig config) {
    return new PaimonFormat(
        config.catalog("lake"), config.connectorName(), 32L << 20, dir.resolve("spill"));
  }

  /**
   * Upserts at offsets 0 to {@code count - 1} of partition 0, over keys 0-9 in turn ({@code "v" +
   * offset}); {@code model} takes the last value of each key.
   */
  static List<SinkRecord> upsertsOfTenKeys(int count, Map<Long, String> model) {
    List<SinkRecord> records = new ArrayList<>();
    for (long i = 0; i < count; i++) {
      records.add(upsert(0, i, i % 10, "v" + i, null));
      model.put(i % 10, "v" + i);
    }
    return records;
  }

  static SinkRecord upsert(int partition, long offset, long id, String name, Long seq) {
    Struct value = new Struct(ROW).put("id", id).put("name", name).put("seq", seq);
    return new SinkRecord(
        "items", partition, KEY, new Struct(KEY).put("id", id), ROW, value, offset);
  }

  static SinkRecord tombstone(int partition, long offset, long id) {
    return new SinkRecord(
        "items", partition, KEY, new Struct(KEY).put("id", id), null, null, offset);
  }

  static SinkRecord cdc(long offset, String op, Long before, Long after, String name) {
    Schema rowSchema = ENVELOPE.field("after").schema();
    Struct value =
        new Struct(ENVELOPE)
            .put("op", op)
            .put(
                "before",
                before == null ? null : new Struct(rowSchema).put("id", before).put("name", "old"))
            .put(
                "after",
                after == null ? null : new Struct(rowSchema).put("id", after).put("name", name));
    long id = after != null ? after : before;
    return new SinkRecord("items", 0, KEY, new Struct(KEY).put("id", id), ENVELOPE, value, offset);
  }

  /**
   * Writes {@code records} with a fresh writer of one "task" and returns its batch for the given
   * ranges.
   */
  OfferedBatch batch(PaimonFormat format, RouteSettings route, List<SinkRecord> records)
      throws Exception {
    return batch(format, table, route, records);
  }

  /** Writes {@code records} into {@code table} with a fresh writer of one "task": its batch. */
  static OfferedBatch batch(
      PaimonFormat format, TableId table, RouteSettings route, List<SinkRecord> records)
      throws Exception {
    TableWriter writer =
        format.openWriter(table, route, records.get(0), new FileBudget(8, 64L << 20)).orElseThrow();
    Map<TopicPartition, OffsetRange> ranges =
        new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
    for (SinkRecord r : records) {
      writer.write(r);
      TopicPartition tp = new TopicPartition(r.topic(), r.kafkaPartition());
      ranges.merge(
          tp,
          new OffsetRange(r.kafkaOffset(), r.kafkaOffset() + 1),
          (a, b) -> new OffsetRange(Math.min(a.from(), b.from()), Math.max(a.to(), b.to())));
    }
    PreparedFiles files = writer.prepare();
    writer.close();
    return new OfferedBatch("b-" + System.nanoTime(), 0, ranges, files, -1);
  }

  /** The commit identifiers of the table's snapshots, oldest first. */
  static List<Long> identifiers(FileStoreTable table) throws Exception {
    List<Long> identifiers = new ArrayList<>();
    table
        .snapshotManager()
        .snapshots()
        .forEachRemaining(s -> identifiers.add(s.commitIdentifier()));
    return identifiers;
  }

  static Map<Long, String> rows(FileStoreTable table) throws Exception {
    ReadBuilder read = table.newReadBuilder();
    Map<Long, String> rows = new TreeMap<>();
    try (RecordReader<InternalRow> reader =
        read.newRead().createReader(read.newScan().plan().splits())) {
      reader.forEachRemaining(
          row -> rows.put(row.getLong(0), row.isNullAt(1) ? null : row.getString(1).toString()));
    }
    return rows;
  }

  /**
   * {@code real}'s batch with every new file changed by {@code change}, or its messages' bucket set
   * to {@code bucket}.
   */
  static OfferedBatch forged(
      OfferedBatch real,
      String id,
      java.util.function.UnaryOperator<org.apache.paimon.io.DataFileMeta> change,
      Integer bucket)
      throws Exception {
    List<org.apache.paimon.table.sink.CommitMessage> messages = new ArrayList<>();
    for (org.apache.paimon.table.sink.CommitMessage m :
        CommitMessagesCodec.decode(real.files().payloadVersion(), real.files().payload())) {
      org.apache.paimon.table.sink.CommitMessageImpl message =
          (org.apache.paimon.table.sink.CommitMessageImpl) m;
      List<org.apache.paimon.io.DataFileMeta> files =
          message.newFilesIncrement().newFiles().stream().map(change).toList();
      messages.add(
          new org.apache.paimon.table.sink.CommitMessageImpl(
              message.partition(),
              bucket == null ? message.bucket() : bucket,
              message.totalBuckets(),
              new org.apache.paimon.io.DataIncrement(files, List.of(), List.of()),
              org.apache.paimon.io.CompactIncrement.emptyIncrement()));
    }
    PreparedFiles files =
        new PreparedFiles(
            CommitMessagesCodec.VERSION,
            CommitMessagesCodec.encode(messages),
            real.files().files(),
            real.files().records(),
            real.files().bytes());
    return new OfferedBatch(id, 1, real.ranges(), files, -1);
  }

  static Set<Path> filesUnder(Path root) throws Exception {
    try (java.util.stream.Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile).collect(java.util.stream.Collectors.toSet());
    }
  }

  /**
   * What a task does with a commit's compaction jobs, and the coordinator's commit of the result.
   */
  Map<String, BatchPlan.Decision> compact(
      PaimonFormat format, CommitOutcome written, long commitId) {
    assertThat(written.compactions()).isNotEmpty();
    PreparedFiles result = format.compact(table, written.compactions());
    return format.commitCompactions(
        table, commitId, List.of(new CompactionResult("compact-" + commitId, 1, result)));
  }
}
