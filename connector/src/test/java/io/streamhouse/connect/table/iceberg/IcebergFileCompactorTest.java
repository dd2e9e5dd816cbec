package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.testing.LocalCatalogConfigs;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Bin-pack compaction against a real JDBC catalog (SQLite file) and a local warehouse. */
class IcebergFileCompactorTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "customer", Types.StringType.get()),
          Types.NestedField.optional(3, "amount", Types.DoubleType.get()),
          Types.NestedField.required(4, "created_at", Types.TimestampType.withZone()));
  private static final OffsetDateTime BASE =
      OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
  private static final long NO_DEADLINE = Long.MAX_VALUE / 2;

  @TempDir Path dir;
  private StreamhouseSinkConfig config;
  private Catalog catalog;

  @BeforeEach
  void setUp() {
    Map<String, String> props = LocalCatalogConfigs.icebergOrders(dir);
    config = new StreamhouseSinkConfig(props);
    catalog = IcebergCatalogLoader.load(config.catalog("local"));
  }

  @AfterEach
  void tearDown() throws IOException {
    if (catalog instanceof Closeable closeable) {
      closeable.close();
    }
  }

  private static long deadline() {
    return System.nanoTime() + NO_DEADLINE;
  }

  private Table create(String name, String format, Function<Schema, PartitionSpec> spec) {
    TableIdentifier id = TableIdentifier.of("default", name);
    if (catalog instanceof SupportsNamespaces namespaces
        && !namespaces.namespaceExists(Namespace.of("default"))) {
      namespaces.createNamespace(Namespace.of("default"));
    }
    return catalog.createTable(
        id,
        SCHEMA,
        spec.apply(SCHEMA),
        Map.of("format-version", "2", "write.format.default", format));
  }

  static Record row(long id) {
    Record row = GenericRecord.create(SCHEMA);
    row.setField("id", id);
    row.setField("customer", "c" + (id % 2));
    row.setField("amount", id % 7 == 0 ? null : id * 1.5);
    row.setField("created_at", BASE.plusHours(25 * (id % 4)).plusMinutes(id % 60));
    return row;
  }

  static List<Record> rows(long from, long to) {
    return java.util.stream.LongStream.range(from, to)
        .mapToObj(IcebergFileCompactorTest::row)
        .toList();
  }

  /** One snapshot adding one file per partition of {@code rows}. */
  static List<DataFile> append(Table table, List<Record> rows) throws IOException {
    List<DataFile> files = write(table, rows, 1);
    AppendFiles append = table.newFastAppend();
    files.forEach(append::appendFile);
    append.commit();
    return files;
  }

  static List<DataFile> write(Table table, List<Record> rows, int fileTaskId) throws IOException {
    FileFormat format =
        FileFormat.fromString(
            table
                .properties()
                .getOrDefault("write.format.default", "parquet")
                .toUpperCase(Locale.ROOT));
    GenericFileWriterFactory factory =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(format)
            .dataSchema(table.schema())
            .build();
    OutputFileFactory outputs =
        OutputFileFactory.builderFor(table, 1, fileTaskId).format(format).build();
    PartitionSpec spec = table.spec();
    InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
    Map<PartitionKey, List<Record>> byPartition = new LinkedHashMap<>();
    for (Record row : rows) {
      PartitionKey key = new PartitionKey(spec, table.schema());
      key.partition(wrapper.wrap(row));
      byPartition.computeIfAbsent(key, k -> new ArrayList<>()).add(row);
    }
    List<DataFile> files = new ArrayList<>();
    for (Map.Entry<PartitionKey, List<Record>> e : byPartition.entrySet()) {
      PartitionKey partition = spec.isUnpartitioned() ? null : e.getKey();
      DataWriter<Record> writer =
          factory.newDataWriter(outputs.newOutputFile(spec, partition), spec, partition);
      try (writer) {
        e.getValue().forEach(writer::write);
      }
      files.add(writer.toDataFile());
    }
    return files;
  }

  /** Every row of the table's current snapshot, each as its list of values: a multiset. */
  static List<List<Object>> read(Table table) throws IOException {
    table.refresh();
    List<List<Object>> rows = new ArrayList<>();
    try (CloseableIterable<Record> all = IcebergGenerics.read(table).build()) {
      for (Record r : all) {
        rows.add(Arrays.asList(IntStream.range(0, r.size()).mapToObj(r::get).toArray()));
      }
    }
    return rows;
  }

  static List<DataFile> liveFiles(Table table) throws IOException {
    table.refresh();
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> files.add(t.file()));
    }
    return files;
  }

  static Set<Path> filesOnDisk(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile)
          .filter(p -> p.toString().contains("/data/"))
          .collect(Collectors.toSet());
    }
  }

  @Test
  void aCompactedFileAtTheSmallFileLimitIsNotRewrittenAgain() throws Exception {
    Table table = create("capped", "parquet", s -> PartitionSpec.unpartitioned());
    for (int i = 0; i < 30; i++) {
      append(table, rows(i * 10L, i * 10L + 10));
    }
    new IcebergFileCompactor().compact(table, IcebergFileCompactor.Settings.DEFAULTS, deadline());
    DataFile compacted = liveFiles(table).get(0);
    for (int i = 30; i < 35; i++) {
      append(table, rows(i * 10L, i * 10L + 10));
    }
    List<List<Object>> before = read(table);

    IcebergFileCompactor.CompactionResult capped =
        new IcebergFileCompactor()
            .compact(
                table,
                new IcebergFileCompactor.Settings(
                    5, null, 512L << 20, 10, compacted.fileSizeInBytes(), null),
                deadline());

    assertThat(capped.filesRemoved()).as("the five new files only").isEqualTo(5);
    assertThat(liveFiles(table))
        .extracting(DataFile::location)
        .hasSize(2)
        .contains(compacted.location());
    assertThat(read(table)).containsExactlyInAnyOrderElementsOf(before);
    for (int i = 35; i < 40; i++) {
      append(table, rows(i * 10L, i * 10L + 10));
    }
    IcebergFileCompactor.CompactionResult uncapped =
        new IcebergFileCompactor()
            .compact(table, IcebergFileCompactor.Settings.DEFAULTS, deadline());
    assertThat(uncapped.filesRemoved())
        .as("without the limit every file under 3/4 of the target is rewritten again")
        .isEqualTo(7);
  }

  @ParameterizedTest
  @ValueSource(strings = {"parquet", "avro", "orc"})
  void thirtySmallFilesOfAnUnpartitionedTableBecomeOne(String format) throws Exception {
    Table table = create("plain_" + format, format, s -> PartitionSpec.unpartitioned());
    for (int i = 0; i < 30; i++) {
      append(table, rows(i * 10L, i * 10L + 10));
    }
    List<List<Object>> before = read(table);
    assertThat(liveFiles(table)).hasSize(30);

    IcebergFileCompactor.CompactionResult result =
        new IcebergFileCompactor()
            .compact(table, IcebergFileCompactor.Settings.DEFAULTS, deadline());

    List<DataFile> after = liveFiles(table);
    assertThat(after).hasSize(1);
    assertThat(after.get(0).format()).isEqualTo(FileFormat.fromString(format));
    assertThat(read(table)).hasSize(300).containsExactlyInAnyOrderElementsOf(before);
    assertThat(result.groupsRewritten()).isEqualTo(1);
    assertThat(result.groupsConflicted()).isZero();
    assertThat(result.filesRemoved()).isEqualTo(30);
    assertThat(result.filesAdded()).isEqualTo(1);
    assertThat(result.bytesRewritten()).isPositive();
    assertThat(result.bytesWritten()).isEqualTo(after.get(0).fileSizeInBytes());
    assertThat(result.liveDataFiles()).isEqualTo(1);
    assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
  }

  static Stream<Arguments> specs() {
    return Stream.of(
        Arguments.of(
            "identity_day",
            (Function<Schema, PartitionSpec>)
                s -> PartitionSpec.builderFor(s).identity("customer").day("created_at").build()),
        Arguments.of(
            "bucket_hour",
            (Function<Schema, PartitionSpec>)
                s -> PartitionSpec.builderFor(s).bucket("id", 4).hour("created_at").build()),
        Arguments.of(
            "truncate",
            (Function<Schema, PartitionSpec>)
                s ->
                    PartitionSpec.builderFor(s)
                        .truncate("customer", 2)
                        .truncate("id", 1000)
                        .build()));
  }

  @ParameterizedTest
  @MethodSource("specs")
  void thirtyAppendsToAPartitionedTableLeaveOneFilePerPartition(
      String name, Function<Schema, PartitionSpec> spec) throws Exception {
    Table table = create("parts_" + name, "parquet", spec);
    for (int i = 0; i < 30; i++) {
      append(table, rows(i * 8L, i * 8L + 8));
    }
    List<List<Object>> before = read(table);
    List<DataFile> filesBefore = liveFiles(table);
    Set<String> partitions =
        filesBefore.stream()
            .map(f -> table.spec().partitionToPath(f.partition()))
            .collect(Collectors.toSet());
    assertThat(filesBefore.size()).isGreaterThanOrEqualTo(30 * 2);

    IcebergFileCompactor.CompactionResult result =
        new IcebergFileCompactor()
            .compact(
                table, new IcebergFileCompactor.Settings(2, null, 512L << 20, 100), deadline());

    List<DataFile> after = liveFiles(table);
    assertThat(after).hasSize(partitions.size());
    assertThat(after.stream().map(f -> table.spec().partitionToPath(f.partition())))
        .containsExactlyInAnyOrderElementsOf(partitions);
    assertThat(read(table)).hasSize(240).containsExactlyInAnyOrderElementsOf(before);
    assertThat(result.groupsRewritten()).isEqualTo(partitions.size());
    assertThat(result.filesRemoved()).isEqualTo(filesBefore.size());
    assertThat(result.liveDataFiles()).isEqualTo(partitions.size());
    // The new files are where a partition filter finds them.
    try (CloseableIterable<Record> c0 =
        IcebergGenerics.read(table).where(Expressions.equal("customer", "c0")).build()) {
      List<Long> ids = new ArrayList<>();
      c0.forEach(r -> ids.add((Long) r.getField("id")));
      assertThat(ids).hasSize(120).allMatch(id -> id % 2 == 0);
    }
  }

  @Test
  void fewerSmallFilesThanTheMinimumAreLeftAlone() throws Exception {
    Table table = create("few", "parquet", s -> PartitionSpec.unpartitioned());
    for (int i = 0; i < 4; i++) {
      append(table, rows(i * 10L, i * 10L + 10));
    }
    long snapshot = table.currentSnapshot().snapshotId();

    IcebergFileCompactor.CompactionResult result =
        new IcebergFileCompactor()
            .compact(table, IcebergFileCompactor.Settings.DEFAULTS, deadline());

    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
    assertThat(liveFiles(table)).hasSize(4);
    assertThat(result.groupsRewritten() + result.groupsConflicted() + result.groupsSkipped())
        .isZero();
    assertThat(result.liveDataFiles()).isEqualTo(4);

    append(table, rows(40, 50)); // the fifth
    assertThat(
            new IcebergFileCompactor()
                .compact(table, IcebergFileCompactor.Settings.DEFAULTS, deadline())
                .filesRemoved())
        .isEqualTo(5);
  }

  @Test
  void aPastDeadlineStartsNoGroup() throws Exception {
    Table table = create("late", "parquet", s -> PartitionSpec.unpartitioned());
    for (int i = 0; i < 6; i++) {
      append(table, rows(i * 10L, i * 10L + 10));
    }
    long snapshot = table.currentSnapshot().snapshotId();
    Set<Path> disk = filesOnDisk(dir);

    IcebergFileCompactor.CompactionResult result =
        new IcebergFileCompactor()
            .compact(table, IcebergFileCompactor.Settings.DEFAULTS, System.nanoTime() - 1);

    table.refresh();
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
    assertThat(result.groupsRewritten()).isZero();
    assertThat(filesOnDisk(dir)).isEqualTo(disk);
  }

  @Test
  void maxGroupsPerRunBoundsARunAndTheNextRunGoesOn() throws Exception {
    Table table =
        create("bounded", "parquet", s -> PartitionSpec.builderFor(s).identity("customer").build());
    for (int i = 0; i < 6; i++) {
      append(table, rows(i * 10L, i * 10L + 10)); // c0 and c1: two files per append
    }
    IcebergFileCompactor.Settings oneGroup =
        new IcebergFileCompactor.Settings(5, null, 512L << 20, 1);

    assertThat(new IcebergFileCompactor().compact(table, oneGroup, deadline()).groupsRewritten())
        .isEqualTo(1);
    assertThat(liveFiles(table)).hasSize(1 + 6);
    assertThat(new IcebergFileCompactor().compact(table, oneGroup, deadline()).groupsRewritten())
        .isEqualTo(1);
    assertThat(liveFiles(table)).hasSize(2);
    assertThat(new IcebergFileCompactor().compact(table, oneGroup, deadline()).groupsRewritten())
        .isZero();
  }

  @Test
  void anAppendBetweenPlanAndCommitStaysAndTheRewriteCommits() throws Exception {
    Table table = create("appended", "parquet", s -> PartitionSpec.unpartitioned());
    for (int i = 0; i < 10; i++) {
      append(table, rows(i * 10L, i * 10L + 10));
    }
    List<List<Object>> expected = new ArrayList<>(read(table));
    expected.addAll(read(rows(1000, 1010)));
    Table other = catalog.loadTable(TableIdentifier.of("default", "appended"));

    IcebergFileCompactor.CompactionResult result =
        new IcebergFileCompactor(
                (t, rewritten) -> {
                  try {
                    append(other, rows(1000, 1010)); // another writer, same partition
                  } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                })
            .compact(table, IcebergFileCompactor.Settings.DEFAULTS, deadline());

    assertThat(result.groupsRewritten()).isEqualTo(1);
    assertThat(result.groupsConflicted()).isZero();
    assertThat(liveFiles(table)).hasSize(2);
    assertThat(read(table)).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(result.liveDataFiles()).isEqualTo(2);
  }

  private static List<List<Object>> read(List<Record> records) {
    return records.stream()
        .map(r -> Arrays.asList(IntStream.range(0, r.size()).mapToObj(r::get).toArray()))
        .toList();
  }

  @Test
  void aFileDeletedBetweenPlanAndCommitFailsOnlyItsGroupAndItsNewFilesAreDeleted()
      throws Exception {
    Table table =
        create("deleted", "parquet", s -> PartitionSpec.builderFor(s).identity("customer").build());
    for (int i = 0; i < 6; i++) {
      append(table, rows(i * 10L, i * 10L + 10));
    }
    Table other = catalog.loadTable(TableIdentifier.of("default", "deleted"));
    Set<Path> disk = filesOnDisk(dir.resolve("warehouse"));
    AtomicInteger calls = new AtomicInteger();
    List<DataFile> removed = new ArrayList<>();

    IcebergFileCompactor.CompactionResult result =
        new IcebergFileCompactor(
                (t, rewritten) -> {
                  if (calls.getAndIncrement() == 0) { // the first group only
                    removed.add(rewritten.get(0));
                    other.newDelete().deleteFile(rewritten.get(0)).commit();
                  }
                })
            .compact(table, IcebergFileCompactor.Settings.DEFAULTS, deadline());

    assertThat(calls).hasValue(2);
    assertThat(result.groupsConflicted()).isEqualTo(1);
    assertThat(result.groupsRewritten()).isEqualTo(1);
    assertThat(result.filesRemoved()).isEqualTo(6);
    List<DataFile> live = liveFiles(table);
    String conflicted = table.spec().partitionToPath(removed.get(0).partition());
    assertThat(
            live.stream()
                .filter(f -> table.spec().partitionToPath(f.partition()).equals(conflicted)))
        .as("the conflicted partition keeps its 5 remaining small files")
        .hasSize(5);
    assertThat(live).hasSize(5 + 1);
    Set<Path> diskAfter = filesOnDisk(dir.resolve("warehouse"));
    Set<Path> added = new HashSet<>(diskAfter);
    added.removeAll(disk);
    assertThat(added)
        .as("only the committed group's file is new on disk")
        .singleElement()
        .satisfies(
            p ->
                assertThat(live)
                    .anyMatch(f -> f.location().endsWith("/" + p.getFileName().toString())));
    // The next run compacts the conflicted partition.
    assertThat(
            new IcebergFileCompactor()
                .compact(table, IcebergFileCompactor.Settings.DEFAULTS, deadline())
                .filesRemoved())
        .isEqualTo(5);
  }

  /** A file with another writer's delete file is left out of its group. */
  @Test
  void aFileWithAnotherWritersDeletesIsLeftAlone() throws Exception {
    Table table =
        create(
            "withdeletes",
            "parquet",
            s -> PartitionSpec.builderFor(s).identity("customer").build());
    for (int i = 0; i < 6; i++) {
      append(table, rows(i * 10L, i * 10L + 10));
    }
    Schema idOnly = table.schema().select("id");
    GenericFileWriterFactory deletes =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(new int[] {1})
            .equalityDeleteRowSchema(idOnly)
            .build();
    PartitionKey c1 = new PartitionKey(table.spec(), table.schema());
    c1.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(row(3)));
    org.apache.iceberg.deletes.EqualityDeleteWriter<Record> writer =
        deletes.newEqualityDeleteWriter(
            OutputFileFactory.builderFor(table, 1, 99).build().newOutputFile(table.spec(), c1),
            table.spec(),
            c1);
    try (writer) {
      Record deleted = GenericRecord.create(idOnly);
      deleted.setField("id", 3L);
      writer.write(deleted);
    }
    table.newRowDelta().addDeletes(writer.toDeleteFile()).commit();
    List<List<Object>> before = read(table);
    assertThat(before).hasSize(59);
    IcebergFileCompactor.CompactionResult result =
        new IcebergFileCompactor()
            .compact(table, IcebergFileCompactor.Settings.DEFAULTS, deadline());

    // Iceberg attaches the delete of id 3 to the one file whose id range holds 3: the other five
    // files of c1 are compacted, that one stays as it is.
    assertThat(result.groupsRewritten()).isEqualTo(2);
    assertThat(result.filesRemoved()).isEqualTo(6 + 5);
    List<DataFile> live = liveFiles(table);
    assertThat(live).hasSize(2 + 1);
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      assertThat(tasks)
          .filteredOn(t -> !t.deletes().isEmpty())
          .singleElement()
          .satisfies(t -> assertThat(t.file().recordCount()).isEqualTo(5))
          .satisfies(
              t -> assertThat(live).extracting(DataFile::location).contains(t.file().location()));
    }
    assertThat(read(table)).containsExactlyInAnyOrderElementsOf(before);
  }

  /**
   * A position delete file that points into several data files of a partition (Spark's default
   * partition granularity, or this connector's keyed tables before 2026-12-02) leaves the table
   * with the rewrite of all of them, and stays while one of them is not rewritten.
   */
  @Test
  void aPartitionWidePositionDeleteFileLeavesWithTheLastOfItsDataFiles() throws Exception {
    Table table = create("partitionwide", "parquet", s -> PartitionSpec.unpartitioned());
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      files.addAll(append(table, rows(i * 10L, i * 10L + 10)));
    }
    GenericFileWriterFactory factory =
        new GenericFileWriterFactory.Builder(table).deleteFileFormat(FileFormat.PARQUET).build();
    org.apache.iceberg.deletes.PositionDeleteWriter<Record> writer =
        factory.newPositionDeleteWriter(
            OutputFileFactory.builderFor(table, 1, 98).build().newOutputFile(), table.spec(), null);
    org.apache.iceberg.deletes.PositionDelete<Record> delete =
        org.apache.iceberg.deletes.PositionDelete.create();
    try (writer) {
      files.stream()
          .map(DataFile::location)
          .sorted()
          .forEach(location -> writer.write(delete.set(location, 0L)));
    }
    org.apache.iceberg.DeleteFile wide = writer.toDeleteFile();
    assertThat(org.apache.iceberg.util.ContentFileUtil.referencedDataFileLocation(wide)).isNull();
    table.newRowDelta().addDeletes(wide).commit();
    // Read with position deletes, Iceberg's generic reader adds each row's position: left out.
    List<List<Object>> before = read(table).stream().map(r -> r.subList(0, 4)).toList();
    assertThat(before).hasSize(27);

    IcebergFileCompactor.CompactionResult result =
        new IcebergFileCompactor()
            .compact(
                table,
                new IcebergFileCompactor.Settings(2, null, 512L << 20, 10, null, 1),
                deadline());

    assertThat(result.filesRemoved()).isEqualTo(3);
    table.refresh();
    assertThat(table.currentSnapshot().summary())
        .containsEntry("total-delete-files", "0")
        .containsEntry("total-position-deletes", "0")
        .containsEntry("total-records", "27");
    assertThat(read(table)).containsExactlyInAnyOrderElementsOf(before);
  }

  // --- the connector's watermarks -----------------------------------------------------------

  private static final TopicPartition TP0 = new TopicPartition("orders", 0);
  private final TableId orders = new TableId("local", List.of("default"), "orders");

  private PreparedFiles writeRecords(IcebergFormat format, long from, long to) throws Exception {
    TableWriter writer =
        format
            .openWriter(
                orders,
                config.routes().get(0),
                AppendTableFixture.record(from, from),
                new FileBudget(64, 64L << 20))
            .orElseThrow();
    for (long o = from; o < to; o++) {
      writer.write(AppendTableFixture.record(o, o));
    }
    return writer.prepare();
  }

  private CommitOutcome commit(IcebergFormat format, long commitId, long from, long to)
      throws Exception {
    PreparedFiles files = writeRecords(format, from, to);
    return format.commit(
        orders,
        commitId,
        List.of(
            new OfferedBatch("b" + commitId, 0, Map.of(TP0, new OffsetRange(from, to)), files, 0L)),
        true);
  }

  @Test
  void aCompactionKeepsTheWatermarksAndTheConnectorCommitsAfterIt() throws Exception {
    try (IcebergFormat format =
        new IcebergFormat(config.catalog("local"), config.connectorName(), 0)) {
      for (int i = 0; i < 10; i++) {
        commit(format, i + 1, i * 10L, i * 10L + 10);
      }
      Watermarks before = format.watermarks(orders);
      assertThat(before.asMap()).containsExactly(Map.entry(TP0, 100L));
      Table table = format.table(orders);
      long own = table.currentSnapshot().snapshotId();
      int filesBefore = liveFiles(table).size();

      IcebergFileCompactor.CompactionResult result =
          new IcebergFileCompactor()
              .compact(
                  table, new IcebergFileCompactor.Settings(2, null, 512L << 20, 100), deadline());

      assertThat(result.groupsRewritten()).isPositive();
      assertThat(liveFiles(table).size()).isLessThan(filesBefore);
      Snapshot replace = table.currentSnapshot();
      assertThat(replace.operation()).isEqualTo("replace");
      assertThat(replace.summary().keySet()).noneMatch(k -> k.startsWith("streamhouse."));
      assertThat(table.refs().get("streamhouse-test-sink").snapshotId()).isEqualTo(own);
      assertThat(format.watermarks(orders)).isEqualTo(before);

      // The connector's next commit validates its own snapshot through the replace snapshots.
      CommitOutcome next = commit(format, 11, 100, 110);
      assertThat(next.decisions()).containsEntry("b11", BatchPlan.Decision.APPLY);
      assertThat(format.watermarks(orders).asMap()).containsExactly(Map.entry(TP0, 110L));
      List<Long> ids = new ArrayList<>();
      try (CloseableIterable<Record> all = IcebergGenerics.read(format.table(orders)).build()) {
        all.forEach(r -> ids.add((Long) r.getField("id")));
      }
      assertThat(ids).hasSize(110).doesNotHaveDuplicates();
    }
  }

  /**
   * A run bounded to one group leaves two replace snapshots in a row on top of the connector's;
   * someone's expiry keeping only the latest then removes the one between: the watermarks must
   * still be found.
   */
  @Test
  void watermarksSurviveAnExpiryOfReplaceSnapshotsBetweenTheConnectorsAndTheLatest()
      throws Exception {
    try (IcebergFormat format =
        new IcebergFormat(config.catalog("local"), config.connectorName(), 0)) {
      for (int i = 0; i < 10; i++) {
        commit(format, i + 1, i * 10L, i * 10L + 10);
      }
      Watermarks before = format.watermarks(orders);
      Table table = format.table(orders);
      IcebergFileCompactor.Settings oneGroup =
          new IcebergFileCompactor.Settings(2, null, 512L << 20, 1);
      assertThat(new IcebergFileCompactor().compact(table, oneGroup, deadline()).groupsRewritten())
          .isEqualTo(1);
      assertThat(new IcebergFileCompactor().compact(table, oneGroup, deadline()).groupsRewritten())
          .isEqualTo(1);

      table
          .expireSnapshots()
          .expireOlderThan(System.currentTimeMillis() + 1)
          .retainLast(1)
          .commit();

      assertThat(format.watermarks(orders)).isEqualTo(before);
      // Its next commit validates its own snapshot across the cut ancestry.
      assertThat(commit(format, 11, 100, 110).decisions())
          .containsEntry("b11", BatchPlan.Decision.APPLY);
      assertThat(format.watermarks(orders).asMap()).containsExactly(Map.entry(TP0, 110L));
      assertThat(read(format.table(orders))).hasSize(110);
    }
  }

  // --- a figure for a later benchmark --------------------------------------------------------

  @Test
  void printsTheScanTimeOfThreeHundredFilesBeforeAndAfterCompaction() throws Exception {
    Table table = create("scan", "parquet", s -> PartitionSpec.unpartitioned());
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      files.addAll(write(table, rows(i * 100L, i * 100L + 100), i));
    }
    AppendFiles append = table.newFastAppend();
    files.forEach(append::appendFile);
    append.commit();
    long before = scanNanos(table);
    IcebergFileCompactor.CompactionResult result =
        new IcebergFileCompactor()
            .compact(table, IcebergFileCompactor.Settings.DEFAULTS, deadline());
    long after = scanNanos(table);
    System.out.printf(
        Locale.ROOT,
        "IcebergFileCompactor: full scan of 30,000 rows: %d files %.1f ms, after compaction"
            + " (%d ms) %d files %.1f ms%n",
        300,
        before / 1e6,
        result.durationMs(),
        result.liveDataFiles(),
        after / 1e6);
    assertThat(result.liveDataFiles()).isEqualTo(1);
  }

  /** The best of three full scans. */
  private static long scanNanos(Table table) throws IOException {
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      long start = System.nanoTime();
      long n = 0;
      try (CloseableIterable<Record> all = IcebergGenerics.read(table).build()) {
        for (Record ignored : all) {
          n++;
        }
      }
      assertThat(n).isEqualTo(30_000);
      best = Math.min(best, System.nanoTime() - start);
    }
    return best;
  }
}
