package io.streamhouse.connect.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.iceberg.IcebergFormat;
import io.streamhouse.connect.table.iceberg.OwnSnapshotValidator;
import io.streamhouse.connect.table.iceberg.WrittenDataFiles;
import io.streamhouse.connect.testing.LocalCatalogConfigs;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.connect.events.AvroUtil;
import org.apache.iceberg.connect.events.DataComplete;
import org.apache.iceberg.connect.events.DataWritten;
import org.apache.iceberg.connect.events.Event;
import org.apache.iceberg.connect.events.StartCommit;
import org.apache.iceberg.connect.events.TableReference;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The take-over from the Apache Iceberg sink against a real JDBC catalog (SQLite) and control
 * events encoded by the Apache events library itself.
 */
class ApacheTakeOverTest {
  private static final String GROUP = "connect-test-sink";
  private static final String TOPIC = "control-iceberg";
  private static final String OFFSETS_KEY = "kafka.connect.offsets." + TOPIC + "." + GROUP;

  @TempDir Path dir;
  private StreamhouseSinkConfig config;
  private TableId table;
  private IcebergFormat format;
  private long nextId;

  @BeforeEach
  void setUp() {
    Map<String, String> props = LocalCatalogConfigs.icebergOrders(dir);
    config = new StreamhouseSinkConfig(props);
    table = new TableId("local", List.of("default"), "orders");
    format = new IcebergFormat(config.catalog("local"), config.connectorName(), 0);
  }

  @org.junit.jupiter.api.AfterEach
  void close() {
    format.close();
  }

  /** Files as the Apache sink's worker would have written them: {@code n} new rows. */
  private List<DataFile> written(int n) throws Exception {
    long from = nextId;
    nextId += n;
    return WrittenDataFiles.write(format, table, config.routes().get(0), from, n);
  }

  private Table iceberg() {
    return format.catalog().loadTable(TableIdentifier.of("default", "orders"));
  }

  private byte[] dataWritten(UUID commitId, List<DataFile> files) {
    return dataWritten(GROUP, commitId, iceberg().uuid(), files);
  }

  private byte[] dataWritten(String group, UUID commitId, UUID tableUuid, List<DataFile> files) {
    return AvroUtil.encode(
        new Event(
            group,
            new DataWritten(
                iceberg().spec().partitionType(),
                commitId,
                TableReference.of("iceberg", TableIdentifier.of("default", "orders"), tableUuid),
                files,
                List.of())));
  }

  private static byte[] startCommit(UUID commitId) {
    return AvroUtil.encode(new Event(GROUP, new StartCommit(commitId)));
  }

  private static byte[] dataComplete(UUID commitId) {
    return AvroUtil.encode(new Event(GROUP, new DataComplete(commitId, List.of())));
  }

  /** What the Apache coordinator commits: the files and the control offsets it had read to. */
  private void apacheCommit(List<DataFile> files, String offsets, UUID commitId) {
    var append = iceberg().newAppend();
    files.forEach(append::appendFile);
    append.set(OFFSETS_KEY, offsets);
    append.set("kafka.connect.commit-id", commitId.toString());
    append.commit();
  }

  private List<Long> ids() throws Exception {
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(iceberg()).build()) {
      rows.forEach(r -> ids.add((Long) r.getField("id")));
    }
    ids.sort(Long::compare);
    return ids;
  }

  private static List<Long> range(long from, long to) {
    List<Long> ids = new ArrayList<>();
    for (long id = from; id < to; id++) {
      ids.add(id);
    }
    return ids;
  }

  /** A take-over of {@code log}, read up to {@code end}, by a new {@link ApacheTakeOver}. */
  private ApacheTakeOver.Result takeOver(List<ControlLog.Record> log, Map<Integer, Long> end) {
    return new ApacheTakeOver("local", format, TOPIC, GROUP)
        .commitPending(new ControlLog(log, end));
  }

  private static ControlLog.Record at(long offset, byte[] value) {
    return new ControlLog.Record(0, offset, value);
  }

  @Test
  void commitsWhatWasReportedButNotCommittedExactlyOnce() throws Exception {
    UUID first = UUID.randomUUID();
    UUID second = UUID.randomUUID();
    List<DataFile> committed = written(30);
    List<DataFile> reported = written(20);
    written(5); // written, never reported: its records are read again by the new connector
    List<ControlLog.Record> log =
        List.of(
            at(0, startCommit(first)),
            at(1, dataWritten(first, committed)),
            at(2, dataComplete(first)),
            at(3, startCommit(second)),
            at(4, dataWritten(second, reported)),
            at(5, dataComplete(second)),
            at(6, dataWritten("connect-other", UUID.randomUUID(), iceberg().uuid(), written(7))));
    apacheCommit(committed, "{\"0\":3}", first);

    ApacheTakeOver.Result result = takeOver(log, Map.of(0, 7L, 1, 0L));

    assertThat(result.tablesCommitted()).isEqualTo(1);
    assertThat(result.recordsCommitted()).isEqualTo(20);
    assertThat(result.commitIds()).containsExactly(second.toString());
    assertThat(result.eventsRejected()).isZero();
    assertThat(ids()).isEqualTo(range(0, 50));
    Map<String, String> summary = iceberg().currentSnapshot().summary();
    assertThat(summary)
        .containsEntry(OFFSETS_KEY, "{\"0\":7,\"1\":0}")
        .containsEntry("streamhouse.test-sink.apache-handover", second.toString())
        .doesNotContainKey("streamhouse.test-sink.watermarks");
    assertThat(format.watermarks(table).asMap().isEmpty())
        .as("the connector's own watermarks begin with its own first commit")
        .isTrue();

    // a restart reads the same events again: nothing left to take over
    ApacheTakeOver.Result again = takeOver(log, Map.of(0, 7L, 1, 0L));
    assertThat(again.tablesCommitted()).isZero();
    assertThat(ids()).isEqualTo(range(0, 50));
  }

  @Test
  void aTableTheApacheSinkNeverCommittedTakesEveryReportedFile() throws Exception {
    UUID commit = UUID.randomUUID();
    List<DataFile> a = written(10);
    List<DataFile> b = written(10);
    ApacheTakeOver.Result result =
        takeOver(
            List.of(at(10, dataWritten(commit, a)), at(11, dataWritten(commit, b))),
            Map.of(0, 12L));
    assertThat(result.recordsCommitted()).isEqualTo(20);
    assertThat(ids()).isEqualTo(range(0, 20));
  }

  /**
   * The Apache coordinator committed after the take-over read the table: the take-over's commit
   * fails its ancestry check, plans again from the new snapshot and adds nothing twice.
   */
  @Test
  void anApacheCommitBetweenReadAndCommitIsNotDoubled() throws Exception {
    UUID commit = UUID.randomUUID();
    List<DataFile> reported = written(15);
    List<ControlLog.Record> log = List.of(at(0, dataWritten(commit, reported)));
    // the validator sees the Apache commit made after the take-over loaded the table
    Table stale = format.catalog().loadTable(TableIdentifier.of("default", "orders"));
    apacheCommit(reported, "{\"0\":1}", commit);
    var append = stale.newAppend();
    reported.forEach(append::appendFile);
    append.set(OFFSETS_KEY, "{\"0\":1}");
    append.validateWith(new OwnSnapshotValidator(OFFSETS_KEY, null, false));
    assertThatThrownBy(append::commit)
        .isInstanceOf(org.apache.iceberg.exceptions.ValidationException.class);

    ApacheTakeOver.Result result = takeOver(log, Map.of(0, 1L));
    assertThat(result.tablesCommitted()).isZero();
    assertThat(ids()).isEqualTo(range(0, 15));
  }

  @Test
  void hostileEventsAreRefusedCountedAndTheRestIsTakenOver() throws Exception {
    UUID commit = UUID.randomUUID();
    List<DataFile> good = written(10);
    DataFile real = written(1).get(0);
    Path outside = dir.resolve("elsewhere.parquet");
    Files.write(outside, new byte[] {1, 2, 3});
    DataFile elsewhere =
        DataFiles.builder(iceberg().spec())
            .copy(real)
            .withPath(outside.toString())
            .withFileSizeInBytes(3)
            .build();
    DataFile missing =
        DataFiles.builder(iceberg().spec())
            .copy(real)
            .withPath(real.location().replace(".parquet", "-gone.parquet"))
            .build();
    DataFile climbing =
        DataFiles.builder(iceberg().spec())
            .copy(real)
            .withPath(real.location().replace("/data/", "/data/../metadata/"))
            .build();
    DataFile wrongSize =
        DataFiles.builder(iceberg().spec())
            .copy(real)
            .withFileSizeInBytes(real.fileSizeInBytes() + 1)
            .build();
    byte[] valid = dataWritten(commit, good);
    List<byte[]> hostile =
        List.of(
            "garbage".getBytes(StandardCharsets.UTF_8),
            new byte[0],
            new byte[] {(byte) 0xC2, 0x01, (byte) 0xff, (byte) 0xff},
            Arrays.copyOf(valid, valid.length - 3), // truncated
            Arrays.copyOf(valid, valid.length + 2), // trailing bytes
            hugeString(startCommit(commit)),
            foreignClass(valid),
            new byte[ApacheEventDecoder.MAX_EVENT_BYTES + 1],
            dataWritten(commit, List.of(elsewhere)),
            dataWritten(commit, List.of(missing)),
            dataWritten(commit, List.of(climbing)),
            dataWritten(commit, List.of(wrongSize)),
            dataWritten(GROUP, commit, UUID.randomUUID(), List.of(real)));
    List<ControlLog.Record> log = new ArrayList<>();
    for (byte[] event : hostile) {
      log.add(at(log.size(), event));
    }
    log.add(at(log.size(), valid));

    ApacheTakeOver counting = new ApacheTakeOver("local", format, TOPIC, GROUP);
    ApacheTakeOver.Result result =
        counting.commitPending(new ControlLog(log, Map.of(0, (long) log.size())));

    assertThat(result.eventsRejected()).isEqualTo(hostile.size());
    assertThat(counting.rejectedEvents()).isEqualTo(hostile.size());
    assertThat(result.recordsCommitted()).isEqualTo(10);
    assertThat(ids()).isEqualTo(range(0, 10));
  }

  /**
   * A file reported twice goes in once, with the first event reporting it; the later event is
   * refused whole. An exact replay of a reported event therefore loses nothing.
   */
  @Test
  void aFileReportedAgainGoesInOnceWithTheFirstEvent() throws Exception {
    UUID commit = UUID.randomUUID();
    List<DataFile> first = written(10);
    List<DataFile> more = written(5);
    byte[] reported = dataWritten(commit, first);
    List<DataFile> again = new ArrayList<>(more);
    again.add(first.get(0));
    List<ControlLog.Record> log =
        List.of(at(0, reported), at(1, reported), at(2, dataWritten(commit, again)));

    ApacheTakeOver.Result result = takeOver(log, Map.of(0, 3L));

    assertThat(result.eventsRejected()).isEqualTo(2);
    assertThat(result.recordsCommitted()).isEqualTo(10);
    assertThat(ids()).isEqualTo(range(0, 10));
  }

  /** {@code event} with its group id's length declared as about 2 GB. */
  private static byte[] hugeString(byte[] event) {
    int schemaLength = ((event[2] & 0xff) << 8) | (event[3] & 0xff);
    int pos = 4 + schemaLength + 16; // the id: a 16-byte fixed
    pos = skipVarint(event, pos); // type
    pos = skipVarint(event, pos); // timestamp
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(event, 0, pos);
    long zigzag = (Integer.MAX_VALUE - 16L) << 1;
    while ((zigzag & ~0x7fL) != 0) {
      out.write((int) ((zigzag & 0x7f) | 0x80));
      zigzag >>>= 7;
    }
    out.write((int) zigzag);
    out.write(event, pos + 1, event.length - pos - 1);
    return out.toByteArray();
  }

  private static int skipVarint(byte[] bytes, int pos) {
    while ((bytes[pos] & 0x80) != 0) {
      pos++;
    }
    return pos + 1;
  }

  /**
   * {@code event} whose schema names a class outside the events library for its table reference.
   */
  private static byte[] foreignClass(byte[] event) {
    int schemaLength = ((event[2] & 0xff) << 8) | (event[3] & 0xff);
    String schema = new String(event, 4, schemaLength, StandardCharsets.UTF_8);
    String changed =
        schema.replace(
            "org.apache.iceberg.connect.events.TableReference",
            "org.apache.avro.generic.GenericData.Recordx");
    byte[] json = changed.getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(event, 0, 2);
    out.write(json.length >> 8);
    out.write(json.length & 0xff);
    out.write(json, 0, json.length);
    out.write(event, 4 + schemaLength, event.length - 4 - schemaLength);
    return out.toByteArray();
  }
}
