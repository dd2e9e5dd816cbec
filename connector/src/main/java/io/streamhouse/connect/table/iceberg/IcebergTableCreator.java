package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.config.PartitionTerm;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.decode.InputMode;
import io.streamhouse.connect.decode.KeyColumns;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.schema.RecordSchemas;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Creates a missing table from a record's schema and the route's partitioning and properties. For
 * atomic rounds the table starts with an empty snapshot: every commit then requires a real snapshot
 * id, which a catalog checks even where it lets a "no snapshot yet" requirement pass (Nessie 0.99
 * does, projectnessie/nessie#10062), so a stale first commit is refused instead of replacing
 * another.
 */
final class IcebergTableCreator {
  private IcebergTableCreator() {}

  static Table create(
      Catalog catalog,
      TableIdentifier id,
      RouteSettings route,
      SinkRecord sample,
      boolean withEmptySnapshot)
      throws RecordConversionException {
    Schema schema;
    try {
      schema =
          IcebergColumns.schemaFor(
              RecordSchemas.rowOf(
                      sample,
                      route.icebergKeyed() ? route.input() : InputMode.UPSERT,
                      route.kafkaMetadata(),
                      route.name())
                  .orElseThrow(
                      () ->
                          new IllegalArgumentException(
                              "the record value is neither a struct nor a JSON object")));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Cannot create table "
              + id
              + " from the record at "
              + sample.topic()
              + "-"
              + sample.kafkaPartition()
              + "@"
              + sample.kafkaOffset()
              + ": "
              + e.getMessage(),
          e);
    }
    if (route.icebergKeyed()) {
      schema = keyed(schema, KeyColumns.of(route.primaryKey(), sample), id, route);
    }
    PartitionSpec spec = spec(schema, route);
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.FORMAT_VERSION, Integer.toString(route.formatVersion()));
    props.put(TableProperties.DEFAULT_FILE_FORMAT, route.fileFormat());
    props.put(
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(route.targetFileSizeBytes()));
    // A streaming sink commits every interval: keep the old metadata files bounded (Iceberg deletes
    // the oldest after each commit) instead of one more JSON file per commit forever.
    props.put(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true");
    props.put(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "100");
    props.putAll(route.tableProperties());
    if (catalog instanceof SupportsNamespaces namespaces
        && !namespaces.namespaceExists(id.namespace())) {
      try {
        namespaces.createNamespace(id.namespace());
      } catch (RuntimeException raced) {
        // Another task may have created it at the same time (the JDBC catalog then reports a
        // constraint violation rather than AlreadyExists): fine if it exists now.
        if (!namespaces.namespaceExists(id.namespace())) {
          throw raced;
        }
      }
    }
    try {
      if (!withEmptySnapshot) {
        return catalog.createTable(id, schema, spec, props);
      }
      Transaction create =
          catalog
              .buildTable(id, schema)
              .withPartitionSpec(spec)
              .withProperties(props)
              .createTransaction();
      create.newAppend().commit();
      create.commitTransaction();
      return catalog.loadTable(id);
    } catch (RuntimeException raced) {
      if (raced instanceof AlreadyExistsException || catalog.tableExists(id)) {
        return catalog.loadTable(id);
      }
      throw raced;
    }
  }

  /**
   * {@code schema} with {@code key} as its identifier fields, made required: top-level primitive
   * columns of the record.
   *
   * @throws RecordConversionException if the key is empty or names no such column
   */
  static Schema keyed(Schema schema, List<String> key, TableIdentifier id, RouteSettings route)
      throws RecordConversionException {
    if (key.isEmpty()) {
      throw new RecordConversionException(
          "<key>",
          "cannot create keyed table "
              + id
              + ": route "
              + route.name()
              + " names no primary-key and the record's Kafka key has no fields");
    }
    Set<Integer> ids = new LinkedHashSet<>();
    List<Types.NestedField> columns = new ArrayList<>();
    for (Types.NestedField field : schema.columns()) {
      if (key.contains(field.name())) {
        if (!field.type().isPrimitiveType()) {
          throw new RecordConversionException(
              field.name(),
              "cannot create keyed table "
                  + id
                  + ": key column '"
                  + field.name()
                  + "' is a "
                  + field.type()
                  + ", not a primitive");
        }
        ids.add(field.fieldId());
        columns.add(
            Types.NestedField.required(field.fieldId(), field.name(), field.type(), field.doc()));
      } else {
        columns.add(field);
      }
    }
    for (String column : key) {
      if (columns.stream().noneMatch(f -> f.name().equals(column))) {
        throw new RecordConversionException(
            column,
            "cannot create keyed table "
                + id
                + ": key column '"
                + column
                + "' is not a top-level field of the record (fields: "
                + schema.columns().stream().map(Types.NestedField::name).toList()
                + ")");
      }
    }
    for (String text : route.partitionBy()) {
      String column = PartitionTerm.parse(text).column();
      if (!key.contains(column)) {
        throw new RecordConversionException(
            column,
            "cannot create keyed table "
                + id
                + ": partition column '"
                + column
                + "' is not a key column "
                + key);
      }
    }
    return new Schema(columns, ids);
  }

  static PartitionSpec spec(Schema schema, RouteSettings route) {
    PartitionSpec.Builder builder = PartitionSpec.builderFor(schema);
    for (String text : route.partitionBy()) {
      PartitionTerm term = PartitionTerm.parse(text);
      if (schema.findField(term.column()) == null) {
        throw new IllegalArgumentException(
            "route "
                + route.name()
                + ": partition column '"
                + term.column()
                + "' is not a field of the record");
      }
      switch (term.transform()) {
        case IDENTITY -> builder.identity(term.column());
        case YEAR -> builder.year(term.column());
        case MONTH -> builder.month(term.column());
        case DAY -> builder.day(term.column());
        case HOUR -> builder.hour(term.column());
        case BUCKET -> builder.bucket(term.column(), term.width());
        case TRUNCATE -> builder.truncate(term.column(), term.width());
        default -> throw new IllegalStateException("unknown transform " + term.transform());
      }
    }
    return builder.build();
  }
}
