package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.config.PartitionTerm;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.decode.InputMode;
import io.streamhouse.connect.decode.KeyColumns;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.schema.FieldType;
import io.streamhouse.connect.schema.RecordSchemas;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;

/**
 * Creates a missing Paimon table from a route and the first record: columns from the row schema
 * (the Debezium {@code after} image for debezium input), primary key from the route or the Kafka
 * key's fields (none: an append table), identity partition keys, a fixed bucket count, level-0
 * files in Avro for primary-key tables, and safe defaults that the route's table properties may
 * override. The dead-letter table is an append table that keeps its required columns NOT NULL, as
 * the Iceberg one does.
 */
final class PaimonTableCreator {
  /** Defaults that keep a table healthy under this connector; see docs/paimon.md. */
  static final Map<String, String> SAFE_DEFAULTS =
      Map.ofEntries(
          // An ALTER that casts STRING->INT (accepted by default) makes the table unreadable.
          Map.entry("disable-explicit-type-casting", "true"),
          // For other writers of the table: a commit message applied twice would corrupt a
          // bucket's level structure. The connector's own commits need no such read of the table
          // (CoordinatorTables: invariant contiguity never applies a batch twice).
          Map.entry(CoordinatorTables.DISCARD_DUPLICATE_FILES, "true"),
          // The latest snapshot of the connector's commit user holds its watermarks: keep a day of
          // snapshots so that other committers (a compaction job) cannot expire it during an
          // outage.
          Map.entry("snapshot.time-retained", "24 h"));

  /**
   * Level-0 files of primary-key tables in Avro: each commit writes one per touched bucket and
   * task, read back only until the next compaction rewrites them in the route's format. Paimon
   * writes a small Avro file several times faster than a Parquet one (no column writers and
   * dictionaries to set up per file; measured 3.0-3.8 against 6-8 µs per record for 200 files of
   * 1,000 records), as its write-performance guide suggests ({@code 'file.format.per.level' =
   * '0:avro'}). Append tables have level 0 only and keep the route's format.
   */
  static final String LEVEL_ZERO_FORMAT = "0:avro";

  /**
   * Options of {@code route.<name>.iceberg-compatible}: Iceberg (v2) metadata at the table's path,
   * rewritten after every commit. Paimon exports every file of an append table, but of a
   * primary-key table only the files at the top level, which only a full compaction writes: the
   * connector runs one every 30 commits of the table. (Paimon's other mode, deletion vectors with
   * Iceberg v3 metadata, exports every file above level 0, but Paimon 1.4 writes v3 metadata
   * without {@code next-row-id}, which Iceberg 1.9 and later refuse to load.)
   */
  static Map<String, String> icebergOptions(boolean primaryKey) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("metadata.iceberg.storage", "table-location");
    if (primaryKey) {
      options.put("full-compaction.delta-commits", "30");
    }
    return options;
  }

  /** Paimon's bucket count of an append table without buckets (bucket-unaware). */
  static final int DEAD_LETTER_BUCKETS = -1;

  private PaimonTableCreator() {}

  static void create(Catalog catalog, Identifier id, RouteSettings route, SinkRecord sample)
      throws RecordConversionException {
    if (sample.value() == null) {
      throw new RecordConversionException(
          "<value>", "a tombstone cannot define the columns of a new table");
    }
    FieldType.Struct row =
        RecordSchemas.rowOf(sample, route.input(), route.kafkaMetadata(), route.name())
            .orElseThrow(
                () ->
                    new RecordConversionException(
                        "<value>",
                        "cannot create table "
                            + id.getFullName()
                            + " from this record: its value is neither a struct "
                            + "nor a JSON object (for Debezium input: an envelope without before and after)"));
    RowType rowType = (RowType) PaimonColumns.paimon(row, true);
    List<String> primaryKey =
        route.deadLetters() ? List.of() : KeyColumns.of(route.primaryKey(), sample);
    if (primaryKey.isEmpty() && route.input() == InputMode.DEBEZIUM) {
      throw new RecordConversionException(
          "<key>",
          "cannot create table "
              + id.getFullName()
              + ": debezium input needs a primary key; set route."
              + route.name()
              + ".primary-key or give the records a struct key");
    }
    org.apache.paimon.schema.Schema.Builder schema = org.apache.paimon.schema.Schema.newBuilder();
    for (DataField f : rowType.getFields()) {
      // Paimon makes the primary key NOT NULL itself; other columns are nullable because Paimon
      // refuses a null in a NOT NULL column even in a delete. The dead-letter table has no deletes
      // and fills its required columns in every row: it keeps them, the same schema as in Iceberg.
      schema.column(f.name(), route.deadLetters() ? f.type() : f.type().copy(true));
    }
    List<String> partitionKeys =
        route.partitionBy().stream().map(t -> PartitionTerm.parse(t).column()).toList();
    for (String column : concat(primaryKey, partitionKeys)) {
      if (!rowType.containsField(column)) {
        throw new RecordConversionException(
            column,
            "cannot create table "
                + id.getFullName()
                + ": key "
                + "or partition column '"
                + column
                + "' is not a field of the record (fields: "
                + rowType.getFieldNames()
                + ")");
      }
    }
    schema.primaryKey(primaryKey).partitionKeys(partitionKeys);
    Map<String, String> options = new LinkedHashMap<>(SAFE_DEFAULTS);
    if (route.deadLetters()) {
      // Unaware-bucket append, whatever the catalog's table-default.bucket: every task writes its
      // own files, no bucket is shared between writers.
      options.put("bucket", Integer.toString(DEAD_LETTER_BUCKETS));
    }
    if (!primaryKey.isEmpty()) {
      options.put("bucket", Integer.toString(route.buckets()));
      route.orderBy().ifPresent(column -> options.put("sequence.field", column));
    }
    options.put("file.format", route.fileFormat());
    if (!primaryKey.isEmpty() && !route.fileFormat().equals("avro")) {
      options.put("file.format.per.level", LEVEL_ZERO_FORMAT);
    }
    options.put("target-file-size", route.targetFileSizeBytes() + " b");
    if (route.icebergCompatible()) {
      options.putAll(icebergOptions(!primaryKey.isEmpty()));
    }
    options.putAll(route.tableProperties());
    schema.options(options);
    try {
      catalog.createDatabase(id.getDatabaseName(), true);
      catalog.createTable(id, schema.build(), true);
    } catch (Catalog.DatabaseNotExistException
        | Catalog.TableAlreadyExistException
        | Catalog.DatabaseAlreadyExistException
        | RuntimeException e) {
      // Another task may create the same table at the same moment (a filesystem catalog then
      // reports that the schema file exists): fine if the table is there now.
      if (!exists(catalog, id)) {
        throw new IllegalStateException(
            "Cannot create Paimon table " + id.getFullName() + ": " + e.getMessage(), e);
      }
    }
  }

  private static boolean exists(Catalog catalog, Identifier id) {
    try {
      catalog.getTable(id);
      return true;
    } catch (Catalog.TableNotExistException e) {
      return false;
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
