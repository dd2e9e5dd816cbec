package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.errors.SchemaChangeRejectedException;
import io.streamhouse.connect.routing.TableRouter.Destination;
import io.streamhouse.connect.schema.EvolutionMode;
import io.streamhouse.connect.schema.EvolutionPlan;
import io.streamhouse.connect.schema.EvolutionPlanner;
import io.streamhouse.connect.schema.FieldType;
import io.streamhouse.connect.schema.RecordSchemas;
import io.streamhouse.connect.table.TableFormat;
import io.streamhouse.connect.table.TableWriter;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a record follows its table's schema, and if it needs a change the route's evolution mode
 * allows, the change made (by the table's format): {@link TableWriters} then rolls the writer over
 * to the new schema.
 */
final class SchemaFollowing {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaFollowing.class);

  private final Map<String, TableFormat> formats;

  SchemaFollowing(Map<String, TableFormat> formats) {
    this.formats = formats;
  }

  /**
   * Schema evolution: false when {@code record} (written by {@code writer}; {@code plans} holds
   * what the planner said per record schema for it) needed the table's schema to change and the
   * change was made (by this task or another). The writer still has the old schema: the caller
   * rolls it over to a writer of the new one; files written under the old schema still commit.
   *
   * @throws RecordConversionException if the planner rejects the record's schema
   */
  boolean follows(
      SinkRecord record, Destination to, TableWriter writer, Map<Schema, EvolutionPlan> plans)
      throws RecordConversionException {
    EvolutionMode mode = to.route().schemaEvolution();
    if (mode == EvolutionMode.NONE || record.value() == null) {
      return true;
    }
    Schema schema = record.valueSchema();
    EvolutionPlan plan = schema != null ? plans.get(schema) : null;
    Optional<FieldType.Struct> row = Optional.empty();
    if (plan == null) {
      row = rowOf(record, to);
      if (row.isEmpty()) {
        return true; // not a row: the writer reports what it cannot take
      }
      plan = EvolutionPlanner.plan(writer.columns(), row.get(), mode);
      if (schema != null) {
        plans.put(schema, plan);
      }
    }
    if (plan.isRejected()) {
      throw new SchemaChangeRejectedException(
          plan.rejection().get().field(), plan.rejection().get().reason());
    }
    if (plan.changes().isEmpty()) {
      return true;
    }
    if (row.isEmpty()) {
      row = rowOf(record, to);
    }
    formats.get(to.table().catalog()).evolve(to.table(), row.orElseThrow(), mode);
    LOG.info(
        "Table {} follows the schema of the record at {}-{} offset {} ({}); "
            + "its writer's files so far go as a batch, a writer of the new schema goes on",
        to.table(),
        record.topic(),
        record.kafkaPartition(),
        record.kafkaOffset(),
        plan.changes());
    return false;
  }

  /** The row {@code record} writes to {@code to}, with the route's Kafka metadata column. */
  private static Optional<FieldType.Struct> rowOf(SinkRecord record, Destination to)
      throws RecordConversionException {
    return RecordSchemas.rowOf(
        record, to.route().input(), to.route().kafkaMetadata(), to.route().name());
  }
}
