package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.config.PartitionTerm;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.convert.InputMode;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.schema.RecordSchemas;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.kafka.connect.sink.SinkRecord;

/** Creates a missing table from a record's schema and the route's partitioning and properties. */
final class IcebergTableCreator {
  private IcebergTableCreator() {}

  static Table create(Catalog catalog, TableIdentifier id, RouteSettings route, SinkRecord sample)
      throws RecordConversionException {
    Schema schema;
    try {
      schema =
          IcebergColumns.schemaFor(
              RecordSchemas.rowOf(sample, InputMode.UPSERT, route.kafkaMetadata(), route.name())
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
    PartitionSpec spec = spec(schema, route);
    Map<String, String> props = new HashMap<>();
    props.put(TableProperties.FORMAT_VERSION, "2");
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
      return catalog.createTable(id, schema, spec, props);
    } catch (RuntimeException raced) {
      if (raced instanceof AlreadyExistsException || catalog.tableExists(id)) {
        return catalog.loadTable(id);
      }
      throw raced;
    }
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
