package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.table.FileBudget;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The data files a batch names, as they travel from a task to the coordinator: Iceberg JSON of
 * bounded size; hostile payloads end in a typed rejection, and batches naming files outside the
 * table's data location, a file another batch names too, or an unknown spec or format are refused.
 */
class IcebergBatchPayloadTest extends AppendTableFixture {
  /** A payload naming {@code files} with their locations changed by {@code relocate}. */
  private PreparedFiles forged(
      IcebergFormat format, PreparedFiles real, java.util.function.UnaryOperator<String> relocate)
      throws Exception {
    Table t = format.table(table);
    List<org.apache.iceberg.DataFile> moved = new ArrayList<>();
    for (org.apache.iceberg.DataFile f :
        DataFilesCodec.decode(real.payloadVersion(), real.payload(), t.specs())) {
      moved.add(
          org.apache.iceberg.DataFiles.builder(t.specs().get(f.specId()))
              .copy(f)
              .withPath(relocate.apply(f.location()))
              .build());
    }
    return new PreparedFiles(
        DataFilesCodec.VERSION,
        DataFilesCodec.encode(moved, t.specs()),
        moved.size(),
        real.records(),
        real.bytes());
  }

  @Test
  void aBatchNamingFilesOutsideTheTablesDataLocationIsRefusedAndItsFilesAreLeftAlone()
      throws Exception {
    try (IcebergFormat format = format()) {
      PreparedFiles real = write(format, 0, 20, new FileBudget(64, 64L << 20));
      Path outside = java.nio.file.Files.createDirectories(dir.resolve("elsewhere"));
      String dataLocation = IcebergFileCheck.dataLocation(format.table(table));
      List<String> copies = new ArrayList<>();
      PreparedFiles foreign =
          forged(
              format,
              real,
              location -> {
                String copy =
                    outside.resolve(location.substring(location.lastIndexOf('/') + 1)).toString();
                copies.add(copy);
                return copy;
              });
      for (String copy : copies) {
        java.nio.file.Files.writeString(Path.of(copy), "not the connector's");
      }
      PreparedFiles climbing =
          forged(
              format,
              real,
              location -> dataLocation + "/../../../elsewhere/x" + location.hashCode());
      CommitOutcome outcome =
          format.commit(
              table,
              1L,
              List.of(
                  batch("foreign", 0, 20, foreign),
                  new OfferedBatch(
                      "climbing",
                      1,
                      Map.of(new TopicPartition("orders", 1), new OffsetRange(0, 20)),
                      climbing,
                      0L)),
              true);
      assertThat(outcome.decisions())
          .containsEntry("foreign", BatchPlan.Decision.REJECT)
          .containsEntry("climbing", BatchPlan.Decision.REJECT);
      assertThat(outcome.refused()).containsExactlyInAnyOrder("foreign", "climbing");
      assertThat(outcome.snapshotId()).isEmpty();
      assertThat(ids(format)).isEmpty();
      for (String copy : copies) {
        assertThat(Path.of(copy)).hasContent("not the connector's");
      }
      // The real batch still commits afterwards.
      assertThat(format.commit(table, 2L, List.of(batch("real", 0, 20, real)), true).decisions())
          .containsEntry("real", BatchPlan.Decision.APPLY);
      assertThat(ids(format)).hasSize(20);
    }
  }

  @Test
  void aFileNamedByTwoBatchesRefusesBothAndAnUnknownSpecOrFormatIsRefused() throws Exception {
    try (IcebergFormat format = format()) {
      PreparedFiles real = write(format, 0, 20, new FileBudget(64, 64L << 20));
      OfferedBatch second =
          new OfferedBatch(
              "copy", 1, Map.of(new TopicPartition("orders", 1), new OffsetRange(0, 20)), real, 0L);
      CommitOutcome twice =
          format.commit(table, 1L, List.of(batch("real", 0, 20, real), second), true);
      assertThat(twice.refused()).containsExactlyInAnyOrder("real", "copy");
      assertThat(ids(format)).isEmpty();

      String json = new String(real.payload(), java.nio.charset.StandardCharsets.UTF_8);
      PreparedFiles unknownSpec =
          new PreparedFiles(
              DataFilesCodec.VERSION,
              json.replace("\"spec-id\":0", "\"spec-id\":99")
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8),
              real.files(),
              real.records(),
              real.bytes());
      PreparedFiles otherFormat =
          new PreparedFiles(
              DataFilesCodec.VERSION,
              json.replace("\"file-format\":\"parquet\"", "\"file-format\":\"avro\"")
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8),
              real.files(),
              real.records(),
              real.bytes());
      PreparedFiles javaSerialized =
          new PreparedFiles(1, new byte[] {(byte) 0xac, (byte) 0xed, 0, 5}, 1, 1, 1);
      CommitOutcome bad =
          format.commit(
              table,
              2L,
              List.of(
                  batch("spec", 0, 20, unknownSpec),
                  batch("format", 0, 20, otherFormat),
                  batch("v1", 0, 20, javaSerialized)),
              true);
      assertThat(bad.refused()).containsExactlyInAnyOrder("spec", "format", "v1");
      assertThat(ids(format)).isEmpty();
    }
  }

  @Test
  void dataFilesTravelAsIcebergJsonOfBoundedSize() throws Exception {
    try (IcebergFormat format = format()) {
      PreparedFiles real = write(format, 0, 20, new FileBudget(64, 64L << 20));
      Table t = format.table(table);
      List<org.apache.iceberg.DataFile> decoded =
          DataFilesCodec.decode(real.payloadVersion(), real.payload(), t.specs());
      assertThat(decoded).hasSize(real.files());
      List<org.apache.iceberg.DataFile> thousand = new ArrayList<>();
      for (int i = 0; i < 1_000; i++) {
        org.apache.iceberg.DataFile f = decoded.get(i % decoded.size());
        thousand.add(
            org.apache.iceberg.DataFiles.builder(t.specs().get(f.specId()))
                .copy(f)
                .withPath(f.location().replace(".parquet", "-" + i + ".parquet"))
                .build());
      }
      byte[] json = DataFilesCodec.encode(thousand, t.specs());
      java.io.ByteArrayOutputStream serialized = new java.io.ByteArrayOutputStream();
      try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(serialized)) {
        out.writeObject(new ArrayList<>(thousand)); // the encoding before version 2, for the record
      }
      System.out.printf(
          "1,000 data files (4 columns, 2 partition fields): %,d bytes as Iceberg JSON, %,d bytes "
              + "Java-serialized%n",
          json.length, serialized.size());
      List<org.apache.iceberg.DataFile> back =
          DataFilesCodec.decode(DataFilesCodec.VERSION, json, t.specs());
      assertThat(back).hasSize(1_000);
      for (int i = 0; i < 1_000; i++) {
        assertThat(back.get(i).location()).isEqualTo(thousand.get(i).location());
        assertThat(back.get(i).partition()).isEqualTo(thousand.get(i).partition());
        assertThat(back.get(i).recordCount()).isEqualTo(thousand.get(i).recordCount());
        assertThat(back.get(i).lowerBounds()).isEqualTo(thousand.get(i).lowerBounds());
        assertThat(back.get(i).upperBounds()).isEqualTo(thousand.get(i).upperBounds());
        assertThat(back.get(i).valueCounts()).isEqualTo(thousand.get(i).valueCounts());
      }
    }
  }

  @Test
  void hostileDataFilePayloadsEndInATypedRejection() throws Exception {
    try (IcebergFormat format = format()) {
      PreparedFiles real = write(format, 0, 20, new FileBudget(64, 64L << 20));
      Map<Integer, org.apache.iceberg.PartitionSpec> specs = format.table(table).specs();
      io.streamhouse.connect.testing.Mutations mutations =
          new io.streamhouse.connect.testing.Mutations(7);
      int refused = 0;
      for (int i = 0; i < 20_000; i++) {
        try {
          DataFilesCodec.decode(DataFilesCodec.VERSION, mutations.mutate(real.payload()), specs);
        } catch (DataFilesCodec.InvalidDataFilesException expected) {
          refused++;
        } catch (Throwable other) {
          throw new AssertionError("case " + i + " ended in " + other, other);
        }
      }
      assertThat(refused).isGreaterThan(10_000);
    }
  }
}
