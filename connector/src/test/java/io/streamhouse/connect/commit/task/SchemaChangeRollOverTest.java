package io.streamhouse.connect.commit.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.TableFormats;
import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.commit.wire.ChunkAssembler;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.routing.TableRouter;
import io.streamhouse.connect.schema.EvolutionMode;
import io.streamhouse.connect.schema.FieldType;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableFormat;
import io.streamhouse.connect.table.TableWriter;
import io.streamhouse.connect.testing.LocalCatalogConfigs;
import io.streamhouse.connect.testing.RecordingChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A schema change rolls over only its own table's writer: the files written under the old schema
 * become a batch, a writer of the new schema goes on from the next offset, nothing is read again,
 * and the batches commit one after another with every row.
 */
class SchemaChangeRollOverTest {
  private static final TopicPartition P0 = new TopicPartition("items", 0);
  private static final Schema KEY = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build();

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"iceberg", "paimon"})
  void aSchemaChangeRollsTheWriterOverWithoutReadingAnythingAgain(String format) throws Exception {
    Map<String, String> props =
        format.equals("paimon")
            ? LocalCatalogConfigs.paimonItems(dir, Map.of())
            : LocalCatalogConfigs.icebergOrders(dir);
    if (format.equals("iceberg")) {
      props.put("route.orders.topics", "items");
      props.put("route.orders.table", "db.items");
      props.put("route.orders.partition-by", "");
      props.put("topics", "items");
    }
    StreamhouseSinkConfig config = new StreamhouseSinkConfig(props);
    assertRollsOverWithEveryRow(config, TableFormats.open(config, 0));
  }

  /**
   * A schema change kept pending for the coordinator (REST catalogs) may no longer fit the table
   * when the new writer opens, and is made again: here the first change is lost before the writer
   * opens, and the roll-over follows the record in a second turn.
   */
  @Test
  void aChangeLostBeforeTheNewWriterOpensIsMadeAgain() throws Exception {
    Map<String, String> props = LocalCatalogConfigs.icebergOrders(dir);
    props.put("route.orders.topics", "items");
    props.put("route.orders.table", "db.items");
    props.put("route.orders.partition-by", "");
    props.put("topics", "items");
    StreamhouseSinkConfig config = new StreamhouseSinkConfig(props);
    Map<String, TableFormat> formats = new HashMap<>(TableFormats.open(config, 0));
    String catalog = formats.keySet().iterator().next();
    formats.put(catalog, new FirstChangeLost(formats.get(catalog)));
    assertRollsOverWithEveryRow(config, formats);
  }

  /** Writes 3 schema versions of 10 records each; each version is a batch, all commit. */
  private void assertRollsOverWithEveryRow(
      StreamhouseSinkConfig config, Map<String, TableFormat> formats) throws Exception {
    RecordingChannel channel = new RecordingChannel();
    Participant participant =
        new Participant(
            config.connectorName(),
            0,
            formats,
            channel,
            new FileBudget(10, 64L << 20),
            FaultInjection.none(),
            0,
            30_000,
            2);
    TableRouter router = new TableRouter(config.routes());
    try {
      participant.assigned(List.of(P0));
      long offset = 0;
      for (int version = 1; version <= 3; version++) {
        for (int i = 0; i < 10; i++, offset++) {
          SinkRecord record = record(version, offset);
          for (TableRouter.Destination to : router.route(record)) {
            assertThat(participant.write(record, P0, to)).isTrue();
          }
        }
      }
      participant.onStartCommit(1);

      List<OfferedBatch> batches = new ArrayList<>();
      ChunkAssembler<ControlEvent.BatchChunk, OfferedBatch> assembler = ChunkAssembler.batches();
      TableId table = null;
      for (ControlEvent.BatchChunk chunk : channel.batches()) {
        table = chunk.table();
        assembler.add(chunk).ifPresent(batches::add);
      }
      assertThat(batches)
          .extracting(b -> b.ranges().get(P0))
          .containsExactly(
              new OffsetRange(0, 10), new OffsetRange(10, 20), new OffsetRange(20, 30));
      assertThat(participant.rewoundOffsets()).isZero();
      assertThat(participant.resetRequested()).isFalse();

      CommitOutcome outcome = formats.get(table.catalog()).commit(table, 1, batches, true);
      assertThat(outcome.decisions().values()).containsOnly(BatchPlan.Decision.APPLY);
      assertThat(outcome.records()).isEqualTo(30);
      assertThat(outcome.watermarks().asMap()).containsEntry(P0, 30L);
    } finally {
      participant.close();
      formats.values().forEach(TableFormat::close);
    }
  }

  /** A format whose first schema change is lost, as a pending one that no longer fits. */
  private static final class FirstChangeLost implements TableFormat {
    private final TableFormat format;
    private boolean lost;

    FirstChangeLost(TableFormat format) {
      this.format = format;
    }

    @Override
    public Optional<TableWriter> openWriter(
        TableId table, RouteSettings route, SinkRecord sample, FileBudget budget)
        throws RecordConversionException {
      return format.openWriter(table, route, sample, budget);
    }

    @Override
    public void evolve(TableId table, FieldType.Struct row, EvolutionMode mode)
        throws RecordConversionException {
      if (lost) {
        format.evolve(table, row, mode);
      }
      lost = true;
    }

    @Override
    public Watermarks watermarks(TableId table) {
      return format.watermarks(table);
    }

    @Override
    public CommitOutcome commit(
        TableId table, long commitId, List<OfferedBatch> batches, boolean fullRound) {
      return format.commit(table, commitId, batches, fullRound);
    }

    @Override
    public void discard(TableId table, List<PreparedFiles> files) {
      format.discard(table, files);
    }

    @Override
    public void close() {
      format.close();
    }
  }

  /** v1: id, name; v2 adds an optional email; v3 an optional score. */
  private static SinkRecord record(int version, long offset) {
    SchemaBuilder builder =
        SchemaBuilder.struct()
            .name("Item")
            .field("id", Schema.INT64_SCHEMA)
            .field("name", Schema.OPTIONAL_STRING_SCHEMA);
    if (version >= 2) {
      builder.field("email", Schema.OPTIONAL_STRING_SCHEMA);
    }
    if (version >= 3) {
      builder.field("score", Schema.OPTIONAL_INT64_SCHEMA);
    }
    Schema schema = builder.version(version).build();
    Struct value = new Struct(schema).put("id", offset).put("name", "n" + offset);
    if (version >= 2) {
      value.put("email", offset + "@example.com");
    }
    if (version >= 3) {
      value.put("score", offset * 10);
    }
    return new SinkRecord(
        "items", 0, KEY, new Struct(KEY).put("id", offset), schema, value, offset);
  }
}
