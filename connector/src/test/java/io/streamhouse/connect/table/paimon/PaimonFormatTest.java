package io.streamhouse.connect.table.paimon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.config.MaintenanceSettings;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.CompactionResult;
import io.streamhouse.connect.protocol.MaintenanceReport;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.DetachedFiles;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.MaintenanceCheckpoints;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.testing.LocalCatalogConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.source.ReadBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Paimon format against a filesystem catalog on local disk: write, commit, compact, read back.
 */
class PaimonFormatTest {
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
  private final TableId table = new TableId("lake", List.of("db"), "items");

  private StreamhouseSinkConfig config(Map<String, String> extra) {
    Map<String, String> props = LocalCatalogConfigs.paimonItems(dir, extra);
    return new StreamhouseSinkConfig(props);
  }

  /** One bucket, a full compaction every {@code commits} commits. */
  private StreamhouseSinkConfig oneBucketFullCompactionEvery(int commits) {
    return config(
        Map.of(
            "route.items.buckets",
            "1",
            "route.items.table-property.full-compaction.delta-commits",
            Integer.toString(commits)));
  }

  private PaimonFormat format(StreamhouseSinkConfig config) {
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
  private OfferedBatch batch(PaimonFormat format, RouteSettings route, List<SinkRecord> records)
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

  /** {@code format}'s coordinator commits compaction {@code result} as planned in {@code plan}. */
  private PaimonCompactions.Attempt tryCommit(
      PaimonFormat format, PaimonCompactions.Plan plan, PreparedFiles result) throws Exception {
    return format
        .compactions()
        .tryCommit(
            table, plan, CommitMessagesCodec.decode(result.payloadVersion(), result.payload()));
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
  private static OfferedBatch forged(
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

  /**
   * A schema change rolls a writer over: the new writer, of the new schema, numbers a key's rows
   * above the old writer's, whose files are not committed yet, so the key's last value wins
   * (without the carried sequence numbers it would number from the committed table and lose).
   */
  @Test
  void theWriterAfterASchemaChangeNumbersAboveTheWriterItFollows() throws Exception {
    StreamhouseSinkConfig config = config(Map.of());
    try (PaimonFormat format = format(config)) {
      RouteSettings route =
          new StreamhouseSinkConfig(
                  LocalCatalogConfigs.paimonItems(
                      dir, Map.of("route.items.schema-evolution", "add-and-widen")))
              .routes()
              .get(0);
      FileBudget budget = new FileBudget(8, 64L << 20);
      TableWriter before =
          format.openWriter(table, route, upsert(0, 0, 1, "v0", null), budget).orElseThrow();
      for (long offset = 0; offset < 5; offset++) {
        before.write(upsert(0, offset, 1, "v" + offset, null));
      }
      DetachedFiles oldSchema = before.detach();
      Schema wider =
          SchemaBuilder.struct()
              .name("Row")
              .field("id", Schema.INT64_SCHEMA)
              .field("name", Schema.OPTIONAL_STRING_SCHEMA)
              .field("seq", Schema.OPTIONAL_INT64_SCHEMA)
              .field("email", Schema.OPTIONAL_STRING_SCHEMA)
              .build();
      SinkRecord newest =
          new SinkRecord(
              "items",
              0,
              KEY,
              new Struct(KEY).put("id", 1L),
              wider,
              new Struct(wider).put("id", 1L).put("name", "newest").put("email", "a@b"),
              5);
      format.evolve(
          table,
          io.streamhouse.connect.schema.RecordSchemas.rowOf(newest, route.input()).orElseThrow(),
          route.schemaEvolution());
      TableWriter after =
          format.openWriterAfter(before, table, route, newest, budget).orElseThrow();
      before.close();
      after.write(newest);
      PreparedFiles newSchema = after.prepare();
      after.close();
      TopicPartition tp = new TopicPartition("items", 0);
      CommitOutcome outcome =
          format.commit(
              table,
              1000,
              List.of(
                  new OfferedBatch(
                      "old", 0, Map.of(tp, new OffsetRange(0, 5)), oldSchema.close(), -1),
                  new OfferedBatch("new", 0, Map.of(tp, new OffsetRange(5, 6)), newSchema, -1)),
              true);
      assertThat(outcome.decisions().values()).containsOnly(BatchPlan.Decision.APPLY);
      assertThat(rows(format.table(table))).containsExactlyEntriesOf(Map.of(1L, "newest"));
    }
  }

  /**
   * Reading on after a hand-in: a task that takes over a partition writes a key again while the
   * batch its last owner handed in, with earlier rows of that key, is not committed yet. Its writer
   * must number the key above that batch's rows, which it only knows from the batch's files; a
   * writer numbering from the committed files would rank the newest row below them.
   */
  @Test
  void aWriterThatReadsOnAfterAHandedInBatchNumbersItsBucketsAboveThatBatch() throws Exception {
    readOnAfterAHandedInBatch(config(Map.of()));
  }

  @Test
  void aWriterThatReadsOnAfterAHandedInBatchNumbersAboveItWithDeletionVectorsToo()
      throws Exception {
    readOnAfterAHandedInBatch(
        config(Map.of("route.items.table-property.deletion-vectors.enabled", "true")));
  }

  private void readOnAfterAHandedInBatch(StreamhouseSinkConfig config) throws Exception {
    RouteSettings route = config.routes().get(0);
    TopicPartition tp = new TopicPartition("items", 0);
    try (PaimonFormat lastOwner = format(config);
        PaimonFormat nextOwner = format(config)) {
      OfferedBatch committed = batch(lastOwner, route, List.of(upsert(0, 0, 1, "c0", null)));
      assertThat(lastOwner.commit(table, 1000, List.of(committed), true).decisions().values())
          .containsOnly(BatchPlan.Decision.APPLY);
      List<SinkRecord> handedIn = new ArrayList<>();
      for (long offset = 1; offset <= 5; offset++) {
        handedIn.add(upsert(0, offset, 1, "v" + offset, null));
      }
      OfferedBatch handed = batch(lastOwner, route, handedIn);

      nextOwner.writeAfter(table, handed.files()).orElseThrow().prepareWriters();
      OfferedBatch after = batch(nextOwner, route, List.of(upsert(0, 6, 1, "newest", null)));
      CommitOutcome outcome =
          lastOwner.commit(
              table,
              1001,
              List.of(
                  new OfferedBatch(
                      "handed-in", 1, Map.of(tp, new OffsetRange(1, 6)), handed.files(), -1),
                  new OfferedBatch(
                      "after", 0, Map.of(tp, new OffsetRange(6, 7)), after.files(), -1)),
              true);

      assertThat(outcome.decisions().values()).containsOnly(BatchPlan.Decision.APPLY);
      assertThat(sequenceNumbers(after.files()).min().orElseThrow())
          .isGreaterThan(sequenceNumbers(handed.files()).max().orElseThrow());
      if (!lastOwner.table(table).coreOptions().deletionVectorsEnabled()) {
        // With deletion vectors a reader sees level-0 files only once compacted.
        assertThat(rows(lastOwner.table(table))).containsExactlyEntriesOf(Map.of(1L, "newest"));
      }
    }
  }

  private static java.util.stream.LongStream sequenceNumbers(PreparedFiles files) throws Exception {
    return CommitMessagesCodec.decode(files.payloadVersion(), files.payload()).stream()
        .flatMap(m -> ((CommitMessageImpl) m).newFilesIncrement().newFiles().stream())
        .flatMapToLong(
            f -> java.util.stream.LongStream.of(f.minSequenceNumber(), f.maxSequenceNumber()));
  }

  @Test
  void aHandedInBatchWhosePayloadCannotBeReadIsNotReadOnAfter() throws Exception {
    StreamhouseSinkConfig config = config(Map.of());
    RouteSettings route = config.routes().get(0);
    try (PaimonFormat format = format(config)) {
      batch(format, route, List.of(upsert(0, 0, 1, "c0", null))); // creates the table
      byte[] garbage = {0, 0, 0, 5, 1, 2, 3};
      assertThat(
              format.writeAfter(
                  table, new PreparedFiles(CommitMessagesCodec.VERSION, garbage, 1, 1, 7)))
          .isEmpty();
      assertThat(
              format.writeAfter(
                  new TableId("lake", List.of("db"), "missing"),
                  new PreparedFiles(CommitMessagesCodec.VERSION, garbage, 1, 1, 7)))
          .isEmpty();
    }
  }

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
  void maintenanceDeletesOldFilesOfBatchesNeverCommittedAndKeepsTheTable() throws Exception {
    StreamhouseSinkConfig config = config(Map.of("route.items.iceberg-compatible", "true"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      OfferedBatch committed =
          batch(format, route, List.of(upsert(0, 0, 1, "a", null), upsert(0, 1, 2, "b", null)));
      format.commit(table, 1000, List.of(committed), true);
      Path tablePath = dir.resolve("warehouse").resolve("db.db").resolve("items");
      Set<Path> before = filesUnder(tablePath);
      batch(format, route, List.of(upsert(0, 2, 3, "never", null))); // written, never committed
      Set<Path> orphans = new HashSet<>(filesUnder(tablePath));
      orphans.removeAll(before);
      assertThat(orphans).as("the uncommitted batch's data files").isNotEmpty();
      long twoHoursAgo = System.currentTimeMillis() - 2 * 3_600_000L;
      for (Path p : filesUnder(tablePath)) {
        Files.setLastModifiedTime(p, java.nio.file.attribute.FileTime.fromMillis(twoHoursAgo));
      }
      MaintenanceSettings cleanOnly =
          new MaintenanceSettings(
              true, 60_000, 60_000, 0, 1, false, 5, 1 << 20, 16L << 20, 3_600_000L);

      MaintenanceReport report =
          format.maintain(
              table, cleanOnly, System.nanoTime() + 60_000_000_000L, MaintenanceCheckpoints.NONE);

      assertThat(report.orphansDeleted()).isEqualTo(orphans.size());
      assertThat(orphans).allSatisfy(p -> assertThat(p).doesNotExist());
      assertThat(filesUnder(tablePath))
          .as("every other file, the Iceberg metadata included, is kept")
          .containsExactlyInAnyOrderElementsOf(before);
      assertThat(rows(format.table(table))).containsOnlyKeys(1L, 2L);
      assertThat(format.watermarks(table).asMap())
          .containsExactly(Map.entry(new org.apache.kafka.common.TopicPartition("items", 0), 2L));
    }
  }

  @Test
  void anExpiryElsewhereKeepsTheWatermarksThroughTheConnectorsTag() throws Exception {
    StreamhouseSinkConfig config = config(Map.of());
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      OfferedBatch first =
          batch(format, route, List.of(upsert(0, 0, 1, "a", null), upsert(0, 1, 2, "b", null)));
      format.commit(table, 1000, List.of(first), true);
      FileStoreTable t = format.table(table);
      assertThat(t.tagManager().tagExists("streamhouse-test-sink")).isTrue();
      org.apache.paimon.table.sink.BatchWriteBuilder other = t.newBatchWriteBuilder();
      for (int i = 0; i < 3; i++) { // another writer, three snapshots on top
        try (org.apache.paimon.table.sink.BatchTableWrite write = other.newWrite();
            org.apache.paimon.table.sink.BatchTableCommit commit = other.newCommit()) {
          write.write(
              org.apache.paimon.data.GenericRow.of(
                  100L + i, org.apache.paimon.data.BinaryString.fromString("other"), null));
          commit.commit(write.prepareCommit());
        }
      }
      int expired =
          t.newExpireSnapshots()
              .config(
                  org.apache.paimon.options.ExpireConfig.builder()
                      .snapshotRetainMax(1)
                      .snapshotRetainMin(1)
                      .snapshotTimeRetain(java.time.Duration.ZERO)
                      .build())
              .expire();
      assertThat(expired).isPositive();
      assertThat(t.snapshotManager().latestSnapshotOfUser(PaimonFormat.commitUser("test-sink")))
          .as("the connector's snapshot is expired")
          .isEmpty();

      assertThat(format.watermarks(table).asMap())
          .containsExactly(Map.entry(new org.apache.kafka.common.TopicPartition("items", 0), 2L));
      OfferedBatch replayed =
          batch(format, route, List.of(upsert(0, 0, 1, "a", null), upsert(0, 1, 2, "b", null)));
      assertThat(format.commit(table, 2000, List.of(replayed), true).decisions())
          .containsEntry(
              replayed.batchId(),
              io.streamhouse.connect.protocol.BatchPlan.Decision.ALREADY_PRESENT);
      OfferedBatch next = batch(format, route, List.of(upsert(0, 2, 3, "c", null)));
      assertThat(format.commit(table, 3000, List.of(next), true).decisions())
          .containsEntry(next.batchId(), io.streamhouse.connect.protocol.BatchPlan.Decision.APPLY);
      assertThat(format.watermarks(table).asMap())
          .containsExactly(Map.entry(new org.apache.kafka.common.TopicPartition("items", 0), 3L));
      assertThat(rows(format.table(table))).containsOnlyKeys(1L, 2L, 3L, 100L, 101L, 102L);
    }
  }

  private static Set<Path> filesUnder(Path root) throws Exception {
    try (java.util.stream.Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile).collect(java.util.stream.Collectors.toSet());
    }
  }

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

  /** The most common key format: {@code StringConverter}, key "28638", for a BIGINT primary key. */
  @Test
  void aTombstoneWithAStringKeyDeletesTheRowOfTheBigintKeyItSpells() throws Exception {
    StreamhouseSinkConfig config =
        config(Map.of("route.items.input", "upsert", "route.items.primary-key", "id"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      SinkRecord stringKeyed =
          new SinkRecord(
              "items",
              0,
              Schema.STRING_SCHEMA,
              "28638",
              ROW,
              new Struct(ROW).put("id", 28638L).put("name", "x"),
              0);
      SinkRecord tombstone =
          new SinkRecord("items", 0, Schema.STRING_SCHEMA, "28638", null, null, 2);
      OfferedBatch batch =
          batch(format, route, List.of(stringKeyed, upsert(0, 1, 7, "y", null), tombstone));
      format.commit(table, 1000, List.of(batch), true);
      assertThat(rows(format.table(table))).containsExactlyEntriesOf(Map.of(7L, "y"));

      TableWriter writer =
          format.openWriter(table, route, tombstone, new FileBudget(8, 64L << 20)).orElseThrow();
      SinkRecord notANumber =
          new SinkRecord("items", 0, Schema.STRING_SCHEMA, "28638x", null, null, 3);
      assertThatThrownBy(() -> writer.write(notANumber))
          .isInstanceOf(RecordConversionException.class)
          .hasMessageContaining(
              "a String value (28638x) does not fit column 'id' of type BIGINT NOT NULL");
      writer.close();
    }
  }

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

  @Test
  void aSecondCompactionOfABucketIsRejectedAndLeavesTheTableAndItsFilesAlone() throws Exception {
    StreamhouseSinkConfig config = oneBucketFullCompactionEvery(1);
    try (PaimonFormat coordinator = format(config);
        PaimonFormat task1 = format(config);
        PaimonFormat task2 = format(config)) {
      RouteSettings route = config.routes().get(0);
      Map<Long, String> model = new TreeMap<>();
      List<SinkRecord> records = upsertsOfTenKeys(100, model);
      CommitOutcome written =
          coordinator.commit(table, 1000, List.of(batch(coordinator, route, records)), true);
      // The job went out twice (its first task was presumed dead): both tasks compact the same
      // files.
      PreparedFiles first = task1.compact(table, written.compactions());
      PreparedFiles stale = task2.compact(table, written.compactions());
      assertThat(first.files()).isPositive();
      // A result sent as a batch of written records is not taken for a compaction: refused.
      CommitOutcome asBatch =
          coordinator.commit(
              table, 1001, List.of(new OfferedBatch("compact-a", 1, Map.of(), first, -1)), true);
      assertThat(asBatch.decisions()).containsEntry("compact-a", BatchPlan.Decision.REJECT);
      assertThat(asBatch.refused()).containsExactly("compact-a");
      assertThat(coordinator.table(table).snapshotManager().latestSnapshotId())
          .isEqualTo(written.snapshotId().getAsLong());
      Map<String, BatchPlan.Decision> decisions =
          coordinator.commitCompactions(
              table,
              1001,
              List.of(
                  new CompactionResult("compact-a", 1, first),
                  new CompactionResult("compact-b", 2, stale)));
      assertThat(decisions)
          .as("the first passes the file checks and applies; the second's files are gone")
          .containsEntry("compact-a", BatchPlan.Decision.APPLY)
          .containsEntry("compact-b", BatchPlan.Decision.REJECT);
      FileStoreTable t = coordinator.table(table);
      assertThat(rows(t)).isEqualTo(model);
      assertThat(t.snapshotManager().latestSnapshot().properties())
          .as("the compaction snapshot keeps the watermarks")
          .containsEntry("streamhouse.test-sink.watermarks", "items:0=100");
      // Discarding the rejected result deletes nothing: a compaction result may be in the table
      // already.
      coordinator.discard(table, List.of(first, stale));
      assertThat(rows(coordinator.table(table))).isEqualTo(model);
    }
  }

  /**
   * A coordinator frozen between planning a compaction commit and committing it (a zombie, whose
   * successor committed meanwhile) must not commit the old plan on top of the newer snapshot: its
   * identifier would go backwards. It plans again, above the successor's identifier.
   */
  /**
   * A coordinator frozen between its last look at the table and its commit, thawed after its
   * successor committed the same offsets (a task rewound and wrote them again): its commit fails as
   * Paimon writes the snapshot, it plans again and rejects its batch, instead of landing it beside
   * the successor's (the watermarks would claim offsets the successor's batch holds too).
   */
  @Test
  void aCoordinatorThawedAfterItsSuccessorCommittedPlansAgainInsteadOfCommittingItsStalePlan()
      throws Exception {
    StreamhouseSinkConfig config = config(Map.of("route.items.buckets", "1"));
    try (PaimonFormat zombie = format(config);
        PaimonFormat successor = format(config)) {
      RouteSettings route = config.routes().get(0);
      Map<Long, String> model = new TreeMap<>();
      zombie.commit(table, 1000, List.of(batch(zombie, route, upsertsOfTenKeys(50, model))), true);

      List<SinkRecord> stale = new ArrayList<>();
      for (long offset = 50; offset < 60; offset++) {
        stale.add(upsert(0, offset, 100 + offset, "stale", null));
      }
      OfferedBatch staleBatch = batch(zombie, route, stale);
      List<SinkRecord> again = new ArrayList<>();
      for (long offset = 50; offset < 53; offset++) {
        again.add(upsert(0, offset, 200 + offset, "again", null));
        model.put(200 + offset, "again");
      }
      OfferedBatch rewritten = batch(successor, route, again);
      int[] thaws = {0};
      zombie.beforeCommit(
          () -> {
            if (thaws[0]++ == 0) { // frozen here once, while the successor commits
              assertThat(successor.commit(table, 1005, List.of(rewritten), true).decisions())
                  .containsEntry(rewritten.batchId(), BatchPlan.Decision.APPLY);
            }
          });

      CommitOutcome outcome = zombie.commit(table, 1001, List.of(staleBatch), true);

      assertThat(outcome.decisions())
          .containsEntry(staleBatch.batchId(), BatchPlan.Decision.REJECT);
      assertOnlyTheFirstAndTheSuccessorsSnapshots(zombie.table(table), "items:0=53", model);
    }
  }

  /**
   * {@code t} holds the first commit's snapshot (1000) and the successor's (1005) only, the latest
   * with {@code watermarks}, and the rows of {@code model}: the frozen coordinator committed
   * nothing.
   */
  private static void assertOnlyTheFirstAndTheSuccessorsSnapshots(
      FileStoreTable t, String watermarks, Map<Long, String> model) throws Exception {
    assertThat(identifiers(t)).containsExactly(1000L, 1005L);
    assertThat(t.snapshotManager().latestSnapshot().properties())
        .containsEntry("streamhouse.test-sink.watermarks", watermarks);
    assertThat(rows(t)).isEqualTo(model);
  }

  /**
   * A compaction whose commit is overtaken between its last look at the table and its snapshot (a
   * frozen coordinator, its successor committing meanwhile) is not committed: its snapshot would
   * carry the watermarks of the commit before the successor's, going back.
   */
  @Test
  void aCompactionOvertakenBetweenItsLastLookAndItsSnapshotIsNotCommitted() throws Exception {
    StreamhouseSinkConfig config = oneBucketFullCompactionEvery(1);
    try (PaimonFormat zombie = format(config);
        PaimonFormat successor = format(config);
        PaimonFormat task = format(config)) {
      RouteSettings route = config.routes().get(0);
      Map<Long, String> model = new TreeMap<>();
      CommitOutcome written =
          zombie.commit(
              table, 1000, List.of(batch(zombie, route, upsertsOfTenKeys(50, model))), true);
      PreparedFiles result = task.compact(table, written.compactions());
      PaimonCompactions.Plan stale = zombie.compactions().plan(table, 1001);
      OfferedBatch later = batch(successor, route, List.of(upsert(0, 50, 3, "later", null)));
      model.put(3L, "later");
      zombie.beforeCommit(
          () ->
              assertThat(successor.commit(table, 1005, List.of(later), true).decisions())
                  .containsEntry(later.batchId(), BatchPlan.Decision.APPLY));

      PaimonCompactions.Attempt attempt = tryCommit(zombie, stale, result);

      assertThat(attempt.committed()).as(attempt.reason()).isFalse();
      assertThat(attempt.baseMoved()).isTrue();
      assertOnlyTheFirstAndTheSuccessorsSnapshots(zombie.table(table), "items:0=51", model);
    }
  }

  @Test
  void aCompactionPlannedBeforeAnotherCommitIsPlannedAgainSoIdentifiersNeverGoBackwards()
      throws Exception {
    StreamhouseSinkConfig config = oneBucketFullCompactionEvery(1);
    try (PaimonFormat zombie = format(config);
        PaimonFormat successor = format(config);
        PaimonFormat task = format(config)) {
      RouteSettings route = config.routes().get(0);
      Map<Long, String> model = new TreeMap<>();
      List<SinkRecord> first = upsertsOfTenKeys(50, model);
      CommitOutcome written =
          zombie.commit(table, 1000, List.of(batch(zombie, route, first)), true);
      PreparedFiles result = task.compact(table, written.compactions());
      PaimonCompactions.Plan stale = zombie.compactions().plan(table, 1001);
      assertThat(stale.identifier()).isEqualTo(1001);

      List<SinkRecord> second = List.of(upsert(0, 50, 3, "later", null));
      model.put(3L, "later");
      assertThat(
              successor
                  .commit(table, 1005, List.of(batch(successor, route, second)), true)
                  .decisions())
          .containsValue(BatchPlan.Decision.APPLY);

      PaimonCompactions.Attempt attempt = tryCommit(zombie, stale, result);
      assertThat(attempt.committed()).as("the stale plan is not committed").isFalse();
      assertThat(attempt.baseMoved()).isTrue();
      assertThat(
              zombie.commitCompactions(
                  table, 1001, List.of(new CompactionResult("compact-1001", 1, result))))
          .containsEntry("compact-1001", BatchPlan.Decision.APPLY);

      FileStoreTable t = zombie.table(table);
      assertThat(identifiers(t)).containsExactly(1000L, 1005L, 1006L);
      assertThat(t.snapshotManager().latestSnapshot().commitKind())
          .isEqualTo(Snapshot.CommitKind.COMPACT);
      assertThat(t.snapshotManager().latestSnapshot().properties())
          .as("the compaction carries the watermarks of the commit it was planned on again")
          .containsEntry("streamhouse.test-sink.watermarks", "items:0=51");
      assertThat(rows(t)).isEqualTo(model);
    }
  }

  @Test
  void aNewCoordinatorFindsTheBucketsWhoseCompactionWasLostAndTheirRowsShowOnceTheyAreCompacted()
      throws Exception {
    StreamhouseSinkConfig config =
        config(
            Map.of(
                "route.items.buckets",
                "2",
                "route.items.table-property.deletion-vectors.enabled",
                "true"));
    try (PaimonFormat crashed = format(config);
        PaimonFormat next = format(config)) {
      RouteSettings route = config.routes().get(0);
      Map<Long, String> model = new TreeMap<>();
      List<SinkRecord> records = upsertsOfTenKeys(40, model);
      CommitOutcome written =
          crashed.commit(table, 1000, List.of(batch(crashed, route, records)), true);
      assertThat(written.compactions()).hasSize(2); // and then the coordinator dies with them
      assertThat(rows(next.table(table)))
          .as("deletion vectors: level-0 rows are not read")
          .isEmpty();

      OptionalLong beforeCompaction = next.latestSnapshotId(table);
      assertThat(beforeCompaction).isPresent();
      List<CompactionJob> pending = next.pendingCompactions(table);
      assertThat(pending)
          .extracting(CompactionJob::key)
          .containsExactlyInAnyOrderElementsOf(
              written.compactions().stream().map(CompactionJob::key).toList());
      PreparedFiles result = next.compact(table, pending);
      assertThat(
              next.commitCompactions(
                  table, 2000, List.of(new CompactionResult("compact-2000", 0, result))))
          .containsEntry("compact-2000", BatchPlan.Decision.APPLY);
      assertThat(rows(next.table(table))).isEqualTo(model);
      assertThat(next.pendingCompactions(table)).isEmpty();
      assertThat(next.pendingCompactions(new TableId("lake", List.of("db"), "missing"))).isEmpty();
      assertThat(next.latestSnapshotId(table).getAsLong())
          .as("the compaction's snapshot follows the written one")
          .isGreaterThan(beforeCompaction.getAsLong());
      assertThat(next.latestSnapshotId(new TableId("lake", List.of("db"), "missing"))).isEmpty();
    }
  }

  /**
   * Readers of a table without deletion vectors merge level-0 files themselves: a bucket gets a
   * compaction job only once it holds num-sorted-run.compaction-trigger of them since its last job,
   * not after every commit.
   */
  @Test
  void aBucketWhoseReadersMergeLevelZeroIsCompactedOnceItReachesTheTrigger() throws Exception {
    StreamhouseSinkConfig config =
        config(
            Map.of(
                "route.items.buckets",
                "1",
                "route.items.table-property.num-sorted-run.compaction-trigger",
                "3"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      Map<Long, String> model = new TreeMap<>();
      List<Integer> jobs = new ArrayList<>();
      CommitOutcome last = null;
      for (long round = 0; round < 5; round++) {
        OfferedBatch batch =
            batch(format, route, List.of(upsert(0, round, round % 2, "v" + round, null)));
        model.put(round % 2, "v" + round);
        last = format.commit(table, 1000 + round, List.of(batch), true);
        jobs.add(last.compactions().size());
        if (round == 2) {
          assertThat(compact(format, last, 1500)).containsValue(BatchPlan.Decision.APPLY);
          assertThat(rows(format.table(table))).isEqualTo(model);
        }
      }
      assertThat(jobs).as("jobs per commit").containsExactly(0, 0, 1, 0, 0);
      assertThat(rows(format.table(table))).isEqualTo(model);
      assertThat(format.table(table).snapshotManager().latestSnapshot().commitKind())
          .isEqualTo(Snapshot.CommitKind.APPEND);
    }
  }

  /**
   * Created primary-key tables write level-0 files in Avro (cheap to write, read only until their
   * compaction) and compact them into the route's format; a level-0 file in another format than the
   * table writes at level 0 is refused.
   */
  @Test
  void createdPrimaryKeyTablesWriteLevelZeroInAvroAndCompactIntoTheRouteFormat() throws Exception {
    StreamhouseSinkConfig config = oneBucketFullCompactionEvery(2);
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      OfferedBatch first = batch(format, route, List.of(upsert(0, 0, 1, "a", null)));
      format.commit(table, 1000, List.of(first), true);
      FileStoreTable t = format.table(table);
      assertThat(t.options())
          .containsEntry("file.format", "parquet")
          .containsEntry("file.format.per.level", "0:avro");
      assertThat(levelAndFormatOfFiles(t)).containsExactly("0:avro");

      OfferedBatch parquetAtLevelZero =
          forged(first, "parquet", f -> f.rename(f.fileName().replace(".avro", ".parquet")), null);
      CommitOutcome refused = format.commit(table, 1500, List.of(parquetAtLevelZero), true);
      assertThat(refused.refused()).containsExactly("parquet");

      CommitOutcome second =
          format.commit(
              table,
              2000,
              List.of(batch(format, route, List.of(upsert(0, 1, 2, "b", null)))),
              true);
      compact(format, second, 2001);
      t = format.table(table);
      assertThat(levelAndFormatOfFiles(t))
          .containsExactly(t.coreOptions().numLevels() - 1 + ":parquet");
      assertThat(rows(t)).isEqualTo(Map.of(1L, "a", 2L, "b"));
    }
  }

  private static List<String> levelAndFormatOfFiles(FileStoreTable t) {
    return t.newSnapshotReader().read().dataSplits().stream()
        .flatMap(split -> split.dataFiles().stream())
        .map(f -> f.level() + ":" + f.fileFormat())
        .toList();
  }

  /**
   * What a task does with a commit's compaction jobs, and the coordinator's commit of the result.
   */
  private Map<String, BatchPlan.Decision> compact(
      PaimonFormat format, CommitOutcome written, long commitId) {
    assertThat(written.compactions()).isNotEmpty();
    PreparedFiles result = format.compact(table, written.compactions());
    return format.commitCompactions(
        table, commitId, List.of(new CompactionResult("compact-" + commitId, 1, result)));
  }

  @Test
  void recordsWithoutAKeyGoToAnAppendTableInAJdbcCatalog() throws Exception {
    StreamhouseSinkConfig config =
        config(
            Map.of(
                "catalog.lake.type",
                "jdbc",
                "catalog.lake.uri",
                "jdbc:sqlite:" + dir.resolve("paimon-catalog.db"),
                "catalog.lake.catalog-key",
                "test"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      List<SinkRecord> records = new ArrayList<>();
      for (long i = 0; i < 10; i++) {
        records.add(
            new SinkRecord(
                "items",
                0,
                null,
                null,
                ROW,
                new Struct(ROW).put("id", i % 3).put("name", "n" + i),
                i));
      }
      format.commit(table, 1000, List.of(batch(format, route, records)), true);
      FileStoreTable t = format.table(table);
      assertThat(t.primaryKeys()).isEmpty();
      assertThat(t.options()).doesNotContainKey("file.format.per.level");
      ReadBuilder read = t.newReadBuilder();
      List<String> names = new ArrayList<>();
      try (RecordReader<InternalRow> reader =
          read.newRead().createReader(read.newScan().plan().splits())) {
        reader.forEachRemaining(row -> names.add(row.getString(1).toString()));
      }
      assertThat(names)
          .containsExactlyInAnyOrder("n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9");
      TableWriter writer =
          format
              .openWriter(table, route, records.get(0), new FileBudget(4, 64L << 20))
              .orElseThrow();
      assertThatThrownBy(() -> writer.write(new SinkRecord("items", 0, null, null, null, null, 10)))
          .isInstanceOf(RecordConversionException.class)
          .hasMessageContaining("append table");
      writer.close();
    }
  }

  @Test
  void debeziumEnvelopesMirrorTheSource() throws Exception {
    StreamhouseSinkConfig config = config(Map.of("route.items.input", "debezium"));
    try (PaimonFormat format = format(config)) {
      RouteSettings route = config.routes().get(0);
      OfferedBatch batch =
          batch(
              format,
              route,
              List.of(
                  cdc(0, "r", null, 1L, "one"),
                  cdc(1, "c", null, 2L, "two"),
                  cdc(2, "u", 1L, 1L, "uno"),
                  cdc(3, "d", 2L, null, null),
                  cdc(4, "c", null, 3L, "three")));
      format.commit(table, 1000, List.of(batch), true);
      assertThat(rows(format.table(table))).isEqualTo(Map.of(1L, "uno", 3L, "three"));
    }
  }

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

  @Test
  void aTombstoneForATableThatDoesNotExistYetCreatesNothing() throws Exception {
    StreamhouseSinkConfig config = config(Map.of());
    try (PaimonFormat format = format(config)) {
      assertThat(
              format.openWriter(
                  table, config.routes().get(0), tombstone(0, 0, 1), new FileBudget(4, 64L << 20)))
          .isEmpty();
      assertThat(format.watermarks(table).asMap()).isEmpty();
      assertThatThrownBy(() -> format.table(table)).hasMessageContaining("does not exist");
    }
  }

  @Test
  void badInputNamesTheField() throws Exception {
    StreamhouseSinkConfig config = config(Map.of("route.items.input", "debezium"));
    try (PaimonFormat format = format(config)) {
      TableWriter writer =
          format
              .openWriter(
                  table,
                  config.routes().get(0),
                  cdc(0, "c", null, 1L, "x"),
                  new FileBudget(4, 64L << 20))
              .orElseThrow();
      assertThatThrownBy(() -> writer.write(cdc(1, "x", null, 1L, "x")))
          .isInstanceOf(RecordConversionException.class)
          .hasMessageContaining("unknown Debezium op 'x'")
          .extracting(e -> ((RecordConversionException) e).field())
          .isEqualTo("op");
      Map<String, Object> nullKey = new HashMap<>();
      nullKey.put("id", null);
      nullKey.put("name", "n");
      SinkRecord missingKey =
          new SinkRecord("items", 0, null, null, null, Map.of("op", "c", "after", nullKey), 2);
      assertThatThrownBy(() -> writer.write(missingKey))
          .isInstanceOf(RecordConversionException.class)
          .hasMessageContaining("primary key field 'id'");
      SinkRecord keylessTombstone = new SinkRecord("items", 0, null, null, null, null, 3);
      assertThatThrownBy(() -> writer.write(keylessTombstone))
          .isInstanceOf(RecordConversionException.class)
          .hasMessageContaining("without a Kafka key");
      writer.close();
    }
  }
}
