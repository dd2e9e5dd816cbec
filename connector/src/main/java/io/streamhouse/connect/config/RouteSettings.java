package io.streamhouse.connect.config;

import io.streamhouse.connect.decode.InputMode;
import io.streamhouse.connect.decode.KafkaMetadata;
import io.streamhouse.connect.schema.EvolutionMode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.AbstractConfig;

/** One named route from topics to tables. */
public record RouteSettings(
    String name,
    List<String> topics,
    Optional<Pattern> topicsRegex,
    String catalog,
    String table,
    Optional<String> tableField,
    Optional<Pattern> tableAllowRegex,
    String namespace,
    boolean autoCreate,
    List<String> partitionBy,
    String fileFormat,
    long targetFileSizeBytes,
    Map<String, String> tableProperties,
    List<String> primaryKey,
    InputMode input,
    int buckets,
    EvolutionMode schemaEvolution,
    boolean icebergCompatible,
    boolean tableFieldQualified,
    Optional<FieldMatch> match,
    KafkaMetadata kafkaMetadata,
    int formatVersion,
    boolean inputGiven,
    Optional<String> orderBy) {

  /** The route takes a record only when the value of {@code field} fully matches {@code regex}. */
  public record FieldMatch(String field, Pattern regex) {}

  /**
   * Whether an Iceberg route writes keyed tables (upserts and deletes by key): it names a primary
   * key or sets {@code input}; otherwise its tables are append tables.
   */
  public boolean icebergKeyed() {
    return !primaryKey.isEmpty() || inputGiven;
  }

  /**
   * Whether this is the route that writes the dead-letter table ({@link
   * StreamhouseSinkConfig#deadLetterRoute}), not a route of the user's.
   */
  public boolean deadLetters() {
    return name.equals(StreamhouseSinkConfig.DEAD_LETTER_ROUTE);
  }

  /** True if this route takes records of {@code topic}. */
  public boolean takes(String topic) {
    return topics.contains(topic) || topicsRegex.map(p -> p.matcher(topic).matches()).orElse(false);
  }

  /**
   * {@code route.<name>.buckets}, or when unset, {@link RouteConfigDef#BUCKETS_MANY_TABLES} for a
   * route that names many tables (a table field, or a {@code ${topic}} table over a topic regex or
   * several topics) and {@link RouteConfigDef#BUCKETS_ONE_TABLE} for one that names one.
   */
  static int buckets(
      Integer explicit, String table, String tableField, List<String> topics, String topicsRegex) {
    if (explicit != null) {
      return explicit;
    }
    boolean perTopic =
        table != null && table.contains("${topic}") && (topicsRegex != null || topics.size() > 1);
    return tableField != null || perTopic
        ? RouteConfigDef.BUCKETS_MANY_TABLES
        : RouteConfigDef.BUCKETS_ONE_TABLE;
  }

  static RouteSettings from(String name, AbstractConfig config, List<String> catalogs) {
    String p = RouteConfigDef.PREFIX + name + ".";
    Map<String, ?> v = config.values();
    String catalog = (String) v.get(p + RouteConfigDef.CATALOG);
    if (catalog == null && catalogs.size() == 1) {
      catalog = catalogs.get(0);
    }
    @SuppressWarnings("unchecked")
    List<String> topics = (List<String>) v.get(p + RouteConfigDef.TOPICS);
    @SuppressWarnings("unchecked")
    List<String> metadata = (List<String>) v.get(p + RouteConfigDef.KAFKA_METADATA);
    @SuppressWarnings("unchecked")
    List<String> primaryKey = (List<String>) v.get(p + RouteConfigDef.PRIMARY_KEY);
    List<String> partitionBy = PartitionTerm.split((String) v.get(p + RouteConfigDef.PARTITION_BY));
    Map<String, String> tableProperties =
        Map.copyOf(
            config.originalsStrings().entrySet().stream()
                .filter(e -> e.getKey().startsWith(p + RouteConfigDef.TABLE_PROPERTY_PREFIX))
                .collect(
                    Collectors.toMap(
                        e ->
                            e.getKey()
                                .substring((p + RouteConfigDef.TABLE_PROPERTY_PREFIX).length()),
                        Map.Entry::getValue)));
    return new RouteSettings(
        name,
        List.copyOf(topics),
        Optional.ofNullable((String) v.get(p + RouteConfigDef.TOPICS_REGEX)).map(Pattern::compile),
        catalog,
        (String) v.get(p + RouteConfigDef.TABLE),
        Optional.ofNullable((String) v.get(p + RouteConfigDef.TABLE_FIELD)),
        Optional.ofNullable((String) v.get(p + RouteConfigDef.TABLE_ALLOW_REGEX))
            .map(Pattern::compile),
        (String) v.get(p + RouteConfigDef.NAMESPACE),
        (Boolean) v.get(p + RouteConfigDef.AUTO_CREATE),
        List.copyOf(partitionBy),
        (String) v.get(p + RouteConfigDef.FILE_FORMAT),
        (Long) v.get(p + RouteConfigDef.TARGET_FILE_SIZE_BYTES),
        tableProperties,
        List.copyOf(primaryKey),
        ConfigWords.parse(InputMode.class, (String) v.get(p + RouteConfigDef.INPUT)),
        buckets(
            (Integer) v.get(p + RouteConfigDef.BUCKETS),
            (String) v.get(p + RouteConfigDef.TABLE),
            (String) v.get(p + RouteConfigDef.TABLE_FIELD),
            topics,
            (String) v.get(p + RouteConfigDef.TOPICS_REGEX)),
        EvolutionMode.of((String) v.get(p + RouteConfigDef.SCHEMA_EVOLUTION)),
        (Boolean) v.get(p + RouteConfigDef.ICEBERG_COMPATIBLE),
        (Boolean) v.get(p + RouteConfigDef.TABLE_FIELD_QUALIFIED),
        Optional.ofNullable((String) v.get(p + RouteConfigDef.MATCH_FIELD))
            .filter(f -> !f.isBlank())
            .map(
                f ->
                    new FieldMatch(
                        f.trim(), Pattern.compile((String) v.get(p + RouteConfigDef.MATCH_REGEX)))),
        KafkaMetadata.of((String) v.get(p + RouteConfigDef.KAFKA_METADATA_COLUMN), metadata),
        (Integer) v.get(p + RouteConfigDef.FORMAT_VERSION),
        config.originals().containsKey(p + RouteConfigDef.INPUT),
        Optional.ofNullable((String) v.get(p + RouteConfigDef.ORDER_BY)));
  }
}
