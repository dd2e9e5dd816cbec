package io.streamhouse.connect.config;

import io.streamhouse.connect.decode.InputMode;
import io.streamhouse.connect.decode.KafkaMetadata;
import io.streamhouse.connect.decode.MetadataText;
import io.streamhouse.connect.schema.EvolutionMode;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The keys of one named route, {@code route.<name>.*}: which topics it takes and which table each
 * record goes to. Keys under {@code route.<name>.table-property.} are set on tables it creates.
 */
public final class RouteConfigDef {
  public static final String PREFIX = "route.";
  static final String GROUP = "Route <name>";

  public static final String TOPICS = "topics";
  public static final String TOPICS_REGEX = "topics.regex";
  public static final String CATALOG = "catalog";
  public static final String TABLE = "table";
  public static final String TABLE_FIELD = "table.field";
  public static final String TABLE_ALLOW_REGEX = "table.allow-regex";
  public static final String TABLE_FIELD_QUALIFIED = "table.field-qualified";
  public static final String MATCH_FIELD = "match.field";
  public static final String MATCH_REGEX = "match.regex";
  public static final String NAMESPACE = "namespace";
  public static final String AUTO_CREATE = "auto-create";
  public static final String PARTITION_BY = "partition-by";
  public static final String FILE_FORMAT = "file-format";
  public static final String TARGET_FILE_SIZE_BYTES = "target-file-size-bytes";
  public static final String PRIMARY_KEY = "primary-key";
  public static final String INPUT = "input";
  public static final String BUCKETS = "buckets";
  public static final String FORMAT_VERSION = "format-version";

  /** Buckets of a created Paimon table when the route names one table. */
  public static final int BUCKETS_ONE_TABLE = 4;

  /** Buckets of a created Paimon table when the route names many (table.field, ${topic}). */
  public static final int BUCKETS_MANY_TABLES = 1;

  public static final String SCHEMA_EVOLUTION = "schema-evolution";
  public static final String ICEBERG_COMPATIBLE = "iceberg-compatible";
  public static final String TABLE_PROPERTY_PREFIX = "table-property.";
  public static final String KAFKA_METADATA = "kafka-metadata";
  public static final String KAFKA_METADATA_COLUMN = "kafka-metadata.column";
  public static final String ORDER_BY = "order-by";

  private RouteConfigDef() {}

  /** The keys of route {@code name}, fully prefixed. {@code <name>} gives the template. */
  public static ConfigDef forName(String name) {
    String p = PREFIX + name + ".";
    String group = GROUP.replace("<name>", name);
    int order = 0;
    return new ConfigDef()
        .define(
            p + TOPICS,
            Type.LIST,
            List.of(),
            Importance.HIGH,
            "Topics this route takes. Set this or topics.regex.",
            group,
            ++order,
            Width.LONG,
            "Topics")
        .define(
            p + TOPICS_REGEX,
            Type.STRING,
            null,
            ConfigValidators.PATTERN,
            Importance.HIGH,
            "Regex over topic names this route takes (full match).",
            group,
            ++order,
            Width.LONG,
            "Topics regex")
        .define(
            p + CATALOG,
            Type.STRING,
            null,
            Importance.HIGH,
            "Catalog (a name from 'catalogs') of the route's tables; may be left out when there is one.",
            group,
            ++order,
            Width.SHORT,
            "Catalog")
        .define(
            p + TABLE,
            Type.STRING,
            "${topic}",
            Importance.HIGH,
            "Target table, 'table' or 'namespace.table'. ${topic} stands for the topic name, "
                + "sanitized: lower case, every character other than a-z, 0-9 and _ becomes _.",
            group,
            ++order,
            Width.LONG,
            "Table")
        .define(
            p + TABLE_FIELD,
            Type.STRING,
            null,
            Importance.MEDIUM,
            "Dynamic routing: a field of the record value whose string value names the table "
                + "(sanitized like ${topic}); a dotted path (a.b) reaches into nested structs and maps "
                + "when no top-level field has that name. Requires table.allow-regex.",
            group,
            ++order,
            Width.MEDIUM,
            "Table field")
        .define(
            p + TABLE_ALLOW_REGEX,
            Type.STRING,
            null,
            ConfigValidators.PATTERN,
            Importance.MEDIUM,
            "With table.field: only table names fully matching this regex are accepted; a record "
                + "naming any other table is an error (dead-letter queue or task failure).",
            group,
            ++order,
            Width.MEDIUM,
            "Allowed tables")
        .define(
            p + TABLE_FIELD_QUALIFIED,
            Type.BOOLEAN,
            false,
            Importance.LOW,
            "With table.field: true reads the value as a whole identifier, namespace.table (as the "
                + "Apache Iceberg sink's dynamic routing does): dots separate the namespace levels, each "
                + "part is sanitized, and table.allow-regex is matched against namespace.table. false: "
                + "the whole value is sanitized into one table name (dots become _) in the route's "
                + "namespace.",
            group,
            ++order,
            Width.SHORT,
            "Field names namespace")
        .define(
            p + MATCH_FIELD,
            Type.STRING,
            null,
            Importance.LOW,
            "Record filter: a field of the record value (a dotted path reaches into nested structs "
                + "and maps); the route takes only the records whose value of it, as a string, fully "
                + "matches match.regex. Other records are not written by this route and are no error "
                + "(the Apache Iceberg sink's route-field with route-regex). Requires match.regex.",
            group,
            ++order,
            Width.MEDIUM,
            "Match field")
        .define(
            p + MATCH_REGEX,
            Type.STRING,
            null,
            ConfigValidators.PATTERN,
            Importance.LOW,
            "With match.field: the regex the field's value must fully match (case-sensitive).",
            group,
            ++order,
            Width.MEDIUM,
            "Match regex")
        .define(
            p + NAMESPACE,
            Type.STRING,
            "default",
            Importance.MEDIUM,
            "Namespace of tables whose name has none.",
            group,
            ++order,
            Width.SHORT,
            "Namespace")
        .define(
            p + AUTO_CREATE,
            Type.BOOLEAN,
            false,
            Importance.MEDIUM,
            "Create a missing table (and its namespace) from the first record's schema. Off: a "
                + "record for a missing table fails the task with a message naming the table.",
            group,
            ++order,
            Width.SHORT,
            "Auto-create")
        .define(
            p + PARTITION_BY,
            Type.STRING,
            "",
            Importance.MEDIUM,
            "Partition spec of created tables: terms such as customer, day(created_at), "
                + "bucket(16, id), truncate(4, name), year/month/hour(ts).",
            group,
            ++order,
            Width.LONG,
            "Partition by")
        .define(
            p + FILE_FORMAT,
            Type.STRING,
            "parquet",
            ConfigWords.oneOf("parquet", "orc", "avro"),
            Importance.LOW,
            "Data file format of created tables. Paimon primary-key tables write their level-0 files "
                + "(each commit's new files, rewritten by the next compaction) in Avro, which Paimon "
                + "writes several times faster in small files (file.format.per.level=0:avro; a "
                + "table-property.file.format.per.level overrides it).",
            group,
            ++order,
            Width.SHORT,
            "File format")
        .define(
            p + TARGET_FILE_SIZE_BYTES,
            Type.LONG,
            128L * 1024 * 1024,
            ConfigDef.Range.atLeast(1024L),
            Importance.LOW,
            "A data file is closed and a new one started past this size.",
            group,
            ++order,
            Width.SHORT,
            "Target file size")
        .define(
            p + PRIMARY_KEY,
            Type.LIST,
            List.of(),
            Importance.MEDIUM,
            "Primary key columns of created tables. Paimon: empty means the field names of the "
                + "Kafka key's struct schema; a route whose records have neither creates an append "
                + "table. Iceberg: a route with a primary key (or with input set) writes keyed "
                + "tables (docs/iceberg-primary-key-tables.md): the latest row per key, superseded "
                + "and deleted rows removed by position; empty and input unset: an append table.",
            group,
            ++order,
            Width.MEDIUM,
            "Primary key")
        .define(
            p + INPUT,
            Type.STRING,
            InputMode.UPSERT.configValue(),
            ConfigWords.oneOf(InputMode.class),
            Importance.MEDIUM,
            "Keyed tables: how a record value becomes a change. upsert: the value is the row and a "
                + "tombstone (null value) deletes the row of its key. debezium: a Debezium envelope "
                + "(op c/r/u/d, before, after) or a flattened record with __op / __deleted fields.",
            group,
            ++order,
            Width.SHORT,
            "Input")
        .define(
            p + ORDER_BY,
            Type.STRING,
            null,
            ConfigDef.LambdaValidator.with(
                (key, value) -> {
                  if (value != null) {
                    ConfigValidators.COLUMN_NAME.ensureValid(key, value);
                  }
                },
                () -> "empty, or " + ConfigValidators.COLUMN_NAME),
            Importance.LOW,
            "Keyed tables: a column whose value orders the changes of a key, so that its latest "
                + "row wins even when its records arrive out of order on several Kafka partitions "
                + "(partitions added to a topic with a backlog, a producer keyed by another "
                + "field). A change whose value is lower than that of the row the table holds for "
                + "its key is dropped (a log line per batch counts them); on a tie the later one "
                + "wins. A tombstone of "
                + "input=upsert carries no value and always applies; a Debezium delete is ordered "
                + "by its before image. Iceberg: an int, long, date or timestamp column that no "
                + "row leaves null. Paimon: the sequence.field of created tables. Unset: the order in "
                + "which records arrive.",
            group,
            ++order,
            Width.SHORT,
            "Order by")
        .define(
            p + FORMAT_VERSION,
            Type.INT,
            2,
            ConfigDef.Range.between(2, 3),
            Importance.LOW,
            "Iceberg: format version of created tables. 2 (the default) is read by every Iceberg "
                + "engine (Athena and ClickHouse read no v3 tables); a keyed table then removes "
                + "rows with position delete files. 3: deletion vectors instead (Spark with "
                + "Iceberg 1.8+, Trino, DuckDB, Snowflake). Tables that exist keep theirs.",
            group,
            ++order,
            Width.SHORT,
            "Iceberg format version")
        .define(
            p + BUCKETS,
            Type.INT,
            null,
            ConfigValidators.nullOrBetween(1, 4096),
            Importance.LOW,
            "Paimon: fixed bucket count of created primary-key tables (it cannot change later "
                + "without rewriting the table; tables that exist keep theirs). Unset: "
                + BUCKETS_ONE_TABLE
                + " when the route names one table, "
                + BUCKETS_MANY_TABLES
                + " when it names many (table.field, or a ${topic} table with topics.regex or "
                + "several topics). Every commit writes one file per written bucket and task, and "
                + "the coordinator compacts and commits per bucket, so with hundreds of tables these "
                + "costs multiply by the bucket count, while a small table gains nothing from more "
                + "buckets. One large table gains from 4: its compactions spread over the tasks and "
                + "readers split it by bucket.",
            group,
            ++order,
            Width.SHORT,
            "Buckets")
        .define(
            p + SCHEMA_EVOLUTION,
            Type.STRING,
            EvolutionMode.ADD_AND_WIDEN.configValue(),
            ConfigWords.oneOf(EvolutionMode.class),
            Importance.MEDIUM,
            "How record schemas may change the route's tables. none: never (fields a table lacks are "
                + "ignored); add-columns: new fields become optional columns (nested too); add-and-widen: "
                + "also int8->int16->int32->int64, float->double, decimal precision up, required->optional. "
                + "Narrowing, other type changes and key or partition column changes are always rejected.",
            group,
            ++order,
            Width.SHORT,
            "Schema evolution")
        .define(
            p + ICEBERG_COMPATIBLE,
            Type.BOOLEAN,
            false,
            Importance.LOW,
            "Paimon: created tables also carry Iceberg metadata, so Iceberg engines can read them "
                + "(metadata.iceberg.storage=table-location: an Iceberg table at the Paimon table's "
                + "path, rewritten after every commit). Append tables show every commit. Iceberg sees "
                + "the rows of a primary-key table as of its last full compaction, which the "
                + "connector runs every 30 commits of the table (full-compaction.delta-commits=30). "
                + "table-property.* keys override these options. Tables that exist already are left "
                + "as they are. Not for Iceberg catalogs.",
            group,
            ++order,
            Width.SHORT,
            "Iceberg-compatible")
        .define(
            p + KAFKA_METADATA,
            Type.LIST,
            List.of(),
            ConfigValidators.wordList(
                Arrays.stream(KafkaMetadata.Part.values()).map(KafkaMetadata.Part::word).toList()),
            Importance.LOW,
            "Kafka metadata written with every row, in one struct column (kafka-metadata.column) "
                + "of optional fields, chosen from: topic (string), partition (int), offset (long; "
                + "the record's original topic, partition and offset, before any transform), "
                + "timestamp (the record's Kafka timestamp, with time zone; null when it has none), "
                + "key (the key as text: strings as they are, bytes in Base64, structs and maps as "
                + "JSON; null past "
                + MetadataText.MAX_KEY_CHARS
                + " characters), headers (a map of header name to its last value as text, like the "
                + "key, null past "
                + MetadataText.MAX_HEADER_CHARS
                + " characters; the first "
                + KafkaMetadata.MAX_HEADERS
                + " headers, names up to "
                + KafkaMetadata.MAX_HEADER_NAME_CHARS
                + " characters). Created tables get the column; tables that exist gain it through "
                + "schema evolution (not with schema-evolution=none). Paimon: a value column, never "
                + "part of the primary key. Empty: no metadata column.",
            group,
            ++order,
            Width.LONG,
            "Kafka metadata")
        .define(
            p + KAFKA_METADATA_COLUMN,
            Type.STRING,
            KafkaMetadata.DEFAULT_COLUMN,
            ConfigValidators.COLUMN_NAME,
            Importance.LOW,
            "With kafka-metadata: the name of the metadata column. A record with a field of this "
                + "name is an error (dead-letter queue or task failure); it cannot be a primary-key "
                + "or partition column.",
            group,
            ++order,
            Width.SHORT,
            "Kafka metadata column");
  }
}
