package io.streamhouse.connect.migration;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.StreamhouseSinkConnector;
import io.streamhouse.connect.config.CatalogSettings;
import io.streamhouse.connect.config.PartitionTerm;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.config.TableFormatKind;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.routing.TableRouter;
import io.streamhouse.connect.schema.EvolutionMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Configs of the Apache Iceberg sink, with only connector.class changed, validate and run here; a
 * key we do not support is one error naming it.
 */
class ApacheConfigTranslationTest {
  private static final String CONNECTOR = StreamhouseSinkConnector.class.getName();

  /** Static tables, a REST catalog with S3, the Kafka settings under iceberg.kafka.*. */
  private static Map<String, String> staticRest() {
    Map<String, String> c = new HashMap<>();
    c.put("name", "orders-sink");
    c.put("connector.class", CONNECTOR);
    c.put("tasks.max", "2");
    c.put("topics", "orders,payments");
    c.put("iceberg.tables", "db.orders,db.payments");
    c.put("iceberg.catalog.type", "rest");
    c.put("iceberg.catalog.uri", "http://rest:8181");
    c.put("iceberg.catalog.warehouse", "s3://lake/wh");
    c.put("iceberg.catalog.io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    c.put("iceberg.catalog.s3.endpoint", "http://minio:9000");
    c.put("iceberg.catalog.s3.path-style-access", "true");
    c.put("iceberg.catalog.credential", "client:secret");
    c.put("iceberg.hadoop.fs.s3a.connection.maximum", "50");
    c.put("iceberg.tables.auto-create-enabled", "true");
    c.put("iceberg.tables.evolve-schema-enabled", "true");
    c.put("iceberg.tables.default-partition-by", "day(ts), bucket(id, 16)");
    c.put("iceberg.table.db.payments.partition-by", "hours(ts)");
    c.put("iceberg.tables.auto-create-props.write.parquet.compression-codec", "zstd");
    c.put("iceberg.tables.schema-force-optional", "false");
    c.put("iceberg.tables.schema-case-insensitive", "false");
    c.put("iceberg.kafka.bootstrap.servers", "kafka:9092");
    c.put("iceberg.kafka.security.protocol", "PLAINTEXT");
    c.put("iceberg.control.topic", "control-iceberg");
    c.put("iceberg.control.group-id-prefix", "cg-control-");
    c.put("iceberg.control.commit.interval-ms", "120000");
    c.put("iceberg.control.commit.timeout-ms", "60000");
    c.put("iceberg.control.commit.threads", "8");
    c.put("iceberg.control.commit.max-consecutive-failures", "3");
    c.put("iceberg.coordinator.transactional.prefix", "team-a-");
    c.put("iceberg.connect.group-id", "connect-orders-sink");
    return c;
  }

  /** Static tables picked by a field's value (route-regex), a JDBC catalog by class. */
  private static Map<String, String> routeRegexJdbc() {
    Map<String, String> c = new HashMap<>();
    c.put("name", "events-sink");
    c.put("connector.class", CONNECTOR);
    c.put("topics.regex", "events\\..*");
    c.put("iceberg.tables", "db.clicks,db.views");
    c.put("iceberg.tables.route-field", "meta.type");
    c.put("iceberg.table.db.clicks.route-regex", "click|tap");
    c.put("iceberg.table.db.views.route-regex", "view");
    c.put("iceberg.catalog", "lake");
    c.put("iceberg.catalog.catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog");
    c.put("iceberg.catalog.uri", "jdbc:sqlite:/tmp/lake.db");
    c.put("iceberg.catalog.warehouse", "/tmp/lake");
    c.put("iceberg.catalog.jdbc.user", "sink");
    c.put("iceberg.catalog.jdbc.password", "pw");
    c.put("iceberg.kafka.bootstrap.servers", "kafka:9092");
    return c;
  }

  /** Dynamic routing: a field's value is the whole table identifier. */
  private static Map<String, String> dynamicRest() {
    Map<String, String> c = new HashMap<>();
    c.put("name", "cdc-sink");
    c.put("connector.class", CONNECTOR);
    c.put("topics", "cdc");
    c.put("iceberg.tables.dynamic-enabled", "true");
    c.put("iceberg.tables.route-field", "target");
    c.put("iceberg.tables.auto-create-enabled", "true");
    c.put("iceberg.catalog.type", "rest");
    c.put("iceberg.catalog.uri", "http://rest:8181");
    c.put("iceberg.kafka.bootstrap.servers", "kafka:9092");
    return c;
  }

  static Stream<Arguments> apacheConfigs() {
    return Stream.of(
        Arguments.of("static tables, REST catalog", staticRest()),
        Arguments.of("route-regex, JDBC catalog", routeRegexJdbc()),
        Arguments.of("dynamic routing, REST catalog", dynamicRest()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("apacheConfigs")
  void anApacheSinkConfigValidatesWithoutErrors(String variant, Map<String, String> config) {
    assertThat(errors(config)).as(variant).isEmpty();
  }

  @Test
  void staticTablesBecomeOneRouteEachOnTheConnectorsTopics() {
    StreamhouseSinkConfig config = config(staticRest());

    CatalogSettings catalog = config.catalog("iceberg");
    assertThat(catalog.format()).isEqualTo(TableFormatKind.ICEBERG);
    assertThat(catalog.type()).isEqualTo("rest");
    assertThat(catalog.properties())
        .containsEntry("uri", "http://rest:8181")
        .containsEntry("warehouse", "s3://lake/wh")
        .containsEntry("io-impl", "org.apache.iceberg.aws.s3.S3FileIO")
        .containsEntry("s3.endpoint", "http://minio:9000")
        .containsEntry("credential", "client:secret")
        .containsEntry("hadoop.fs.s3a.connection.maximum", "50");
    assertThat(config.routes())
        .extracting(RouteSettings::name)
        .containsExactly("db_orders", "db_payments");
    RouteSettings orders = config.routes().get(0);
    assertThat(orders.topics()).containsExactly("orders", "payments");
    assertThat(orders.table()).isEqualTo("db.orders");
    assertThat(orders.catalog()).isEqualTo("iceberg");
    assertThat(orders.autoCreate()).isTrue();
    assertThat(orders.schemaEvolution()).isEqualTo(EvolutionMode.ADD_AND_WIDEN);
    assertThat(orders.partitionBy()).containsExactly("day(ts)", "bucket(id, 16)");
    assertThat(PartitionTerm.parse("bucket(id, 16)"))
        .isEqualTo(new PartitionTerm(PartitionTerm.Transform.BUCKET, "id", 16));
    assertThat(orders.tableProperties()).containsEntry("write.parquet.compression-codec", "zstd");
    assertThat(config.routes().get(1).partitionBy()).containsExactly("hours(ts)");
    assertThat(config.commitIntervalMs()).isEqualTo(120_000L);
    assertThat(config.commitTimeoutMs()).isEqualTo(60_000L);
    assertThat(config.commitParallelism()).isEqualTo(8);
    assertThat(config.controlTopic())
        .as("never the Apache sink's")
        .isEqualTo("streamhouse-control");
    assertThat(config.kafkaClientProps())
        .containsEntry("bootstrap.servers", "kafka:9092")
        .containsEntry("security.protocol", "PLAINTEXT");

    TableRouter router = new TableRouter(config.routes());
    assertThat(router.staticDestinations("payments"))
        .hasValueSatisfying(
            d ->
                assertThat(d)
                    .extracting(TableRouter.Destination::table)
                    .as("without route-field every record goes to every table")
                    .containsExactly(
                        new TableId("iceberg", List.of("db"), "orders"),
                        new TableId("iceberg", List.of("db"), "payments")));
  }

  @Test
  void theTakeOverReadsTheApacheSinksControlTopicOfItsCatalog() {
    Map<String, String> translated = props(staticRest());
    assertThat(translated)
        .as("Apache's default control topic, when the config names none")
        .containsEntry("migration.apache-iceberg.control-topic", "control-iceberg")
        .containsEntry("migration.apache-iceberg.catalog", "iceberg");
    Map<String, String> named = staticRest();
    named.put("iceberg.control.topic", "ctl-orders");
    assertThat(props(named)).containsEntry("migration.apache-iceberg.control-topic", "ctl-orders");
  }

  @Test
  void theApacheDefaultsHoldWhereTheyDifferFromOurs() {
    StreamhouseSinkConfig config = config(dynamicRest());
    assertThat(config.commitIntervalMs()).as("Apache commits every 5 minutes").isEqualTo(300_000L);

    Map<String, String> noEvolution = staticRest();
    noEvolution.remove("iceberg.tables.evolve-schema-enabled");
    noEvolution.remove("iceberg.tables.auto-create-enabled");
    RouteSettings route = config(noEvolution).routes().get(0);
    assertThat(route.schemaEvolution()).isEqualTo(EvolutionMode.NONE);
    assertThat(route.autoCreate()).isFalse();
  }

  @Test
  void routeRegexOnAFieldPicksTheTablesOfEachRecordAndDropsTheRest() throws Exception {
    StreamhouseSinkConfig config = config(routeRegexJdbc());
    assertThat(config.catalog("lake").type()).isEqualTo("jdbc");
    assertThat(config.catalog("lake").properties())
        .containsEntry("jdbc.user", "sink")
        .containsEntry("jdbc.password", "pw")
        .doesNotContainKey("catalog-impl");
    assertThat(config.routes())
        .allSatisfy(
            r ->
                assertThat(r.topicsRegex())
                    .hasValueSatisfying(p -> assertThat(p.pattern()).isEqualTo("events\\..*")));

    TableRouter router = new TableRouter(config.routes());
    assertThat(router.staticDestinations("events.web")).as("depends on the record").isEmpty();
    assertThat(tablesOf(router, "click"))
        .containsExactly(new TableId("lake", List.of("db"), "clicks"));
    assertThat(tablesOf(router, "tap"))
        .containsExactly(new TableId("lake", List.of("db"), "clicks"));
    assertThat(tablesOf(router, "view"))
        .containsExactly(new TableId("lake", List.of("db"), "views"));
    assertThat(tablesOf(router, "viewed")).as("full match, as in Apache").isEmpty();
    assertThat(tablesOf(router, null)).as("no value: dropped, as in Apache").isEmpty();
  }

  @Test
  void dynamicRoutingTakesTheWholeIdentifierFromTheField() throws Exception {
    Map<String, String> given = dynamicRest();
    given.put("iceberg.catalog", "lake");
    StreamhouseSinkConfig config = config(given);
    assertThat(config.routes())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.tableField()).contains("target");
              assertThat(r.tableFieldQualified()).isTrue();
              assertThat(r.autoCreate()).isTrue();
            });
    TableRouter router = new TableRouter(config.routes());

    assertThat(router.route(record("cdc", Map.of("target", "DB.Orders"))))
        .extracting(TableRouter.Destination::table)
        .containsExactly(new TableId("lake", List.of("db"), "orders"));
    assertThat(router.route(record("cdc", Map.of("target", "a.b.Events-EU"))))
        .extracting(TableRouter.Destination::table)
        .containsExactly(new TableId("lake", List.of("a", "b"), "events_eu"));
  }

  @Test
  void anAllowListOfOursNarrowsDynamicRouting() {
    Map<String, String> given = dynamicRest();
    given.put("route.dynamic.table.allow-regex", "db\\.(orders|payments)");
    StreamhouseSinkConfig config = config(given);
    TableRouter router = new TableRouter(config.routes());
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> router.route(record("cdc", Map.of("target", "db.users"))))
        .hasMessageContaining("is not allowed");
    assertThat(errors(given)).isEmpty();
  }

  static Stream<Arguments> unsupportedKeys() {
    return Stream.of(
        Arguments.of("iceberg.tables.default-commit-branch", "audit", "branch"),
        Arguments.of("iceberg.table.db.orders.commit-branch", "audit", "branch"),
        Arguments.of("iceberg.tables.write-props.write.format.default", "orc", "auto-create-props"),
        Arguments.of("iceberg.tables.schema-force-optional", "true", "optional"),
        Arguments.of("iceberg.tables.schema-case-insensitive", "true", "case"),
        Arguments.of("iceberg.tables.cdc-field", "_cdc.op", "__op"),
        Arguments.of("iceberg.connect.group-id", "other-group", "Connect"),
        Arguments.of("iceberg.catalog.catalog-impl", "org.example.NoSuchCatalog", "class path"),
        Arguments.of("iceberg.tables.no-such-key", "x", "not a key"),
        Arguments.of("iceberg.table.db.orders.route-regx", "x", "not a key"),
        Arguments.of("iceberg.tables.default-partition-by", "day(a.b)", "column"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("unsupportedKeys")
  void anUnsupportedKeyIsOneErrorNamingIt(String key, String value, String why) {
    Map<String, String> config = staticRest();
    config.put(key, value);
    if (key.equals("iceberg.catalog.catalog-impl")) {
      config.remove("iceberg.catalog.type");
    }
    assertThat(errors(config))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.name()).isEqualTo(key);
              assertThat(e.errorMessages())
                  .singleElement()
                  .asString()
                  .startsWith(key)
                  .contains(why);
            });
  }

  @Test
  void aHiveCatalogIsAnErrorAlsoWhenItIsIcebergsDefault() {
    Map<String, String> config = staticRest();
    config.put("iceberg.catalog.type", "hive");
    assertThat(errors(config))
        .extracting(ConfigValue::name)
        .containsExactly("iceberg.catalog.type");
    config.remove("iceberg.catalog.type");
    assertThat(errors(config))
        .singleElement()
        .satisfies(e -> assertThat(e.errorMessages().get(0)).contains("Hive"));
  }

  @Test
  void keysOfOursWinOverTheApacheKeysMappedOntoThem() {
    Map<String, String> config = staticRest();
    config.put("commit.interval.ms", "30000");
    Translation t = ApacheConfigTranslation.translate(config, Map::of);
    assertThat(t.props()).containsEntry("commit.interval.ms", "30000");
    assertThat(t.warnings()).anyMatch(w -> w.contains("commit.interval.ms counts"));
    assertThat(errors(config)).isEmpty();
  }

  @Test
  void theControlTopicStaysOursAndIsNeverTheApacheOne() {
    Map<String, String> config = staticRest();
    config.put("control.topic", "control-iceberg");
    assertThat(errors(config))
        .singleElement()
        .satisfies(e -> assertThat(e.name()).isEqualTo("iceberg.control.topic"));
  }

  @Test
  void mixingApacheTablesWithOurRoutesIsAnError() {
    Map<String, String> config = staticRest();
    config.put("routes", "r");
    config.put("route.r.topics", "orders");
    assertThat(errors(config)).extracting(ConfigValue::name).contains("iceberg.tables");
  }

  /**
   * A table's keys are known even when the tables are in error (before the rule table they were
   * reported as no keys at all); the table settings of routes given next to them do nothing.
   */
  @Test
  void aTablesKeysAreNoUnknownKeysWhenTheTablesAreInError() {
    Map<String, String> config = staticRest();
    config.put("routes", "r");
    config.put("route.r.topics", "orders");
    Translation t = ApacheConfigTranslation.translate(config, Map::of);
    assertThat(t.errors()).containsOnlyKeys("iceberg.tables");
    assertThat(t.props()).doesNotContainKeys("route.db_payments.partition-by");

    Map<String, String> noTables = staticRest();
    noTables.remove("iceberg.tables");
    noTables.put("iceberg.table.db.orders.id-columns", "id");
    assertThat(ApacheConfigTranslation.translate(noTables, Map::of).errors())
        .containsOnlyKeys("iceberg.tables");
  }

  @Test
  void theUpsertKeysOfTheTabularSinkMakeKeyedRoutes() {
    Map<String, String> given = staticRest();
    given.put("iceberg.tables.default-id-columns", "id");
    given.put("iceberg.table.db.orders.id-columns", "order_id,line");
    given.put("iceberg.tables.upsert-mode-enabled", "true");
    assertThat(errors(given))
        .as("a keyed table is partitioned by key columns only")
        .anySatisfy(e -> assertThat(e.errorMessages().toString()).contains("key columns only"));
    given.remove("iceberg.tables.default-partition-by");
    given.remove("iceberg.table.db.payments.partition-by");
    assertThat(errors(given)).isEmpty();
    StreamhouseSinkConfig config = config(given);
    assertThat(config.routes())
        .allSatisfy(
            r -> {
              assertThat(r.icebergKeyed()).isTrue();
              assertThat(r.input()).isEqualTo(io.streamhouse.connect.decode.InputMode.UPSERT);
            });
    assertThat(config.routes())
        .extracting(r -> r.table() + "=" + r.primaryKey())
        .contains("db.orders=[order_id, line]", "db.payments=[id]");

    given.put("iceberg.tables.cdc-field", "__op");
    assertThat(config(given).routes())
        .allSatisfy(
            r -> assertThat(r.input()).isEqualTo(io.streamhouse.connect.decode.InputMode.DEBEZIUM));
  }

  @Test
  void withoutKafkaSettingsTheWorkersPropertiesFileGivesTheClusterButNoSecret(@TempDir Path dir)
      throws IOException {
    Path file = dir.resolve("connect-distributed.properties");
    Files.writeString(
        file,
        String.join(
            "\n",
            "bootstrap.servers=broker-1:9093,broker-2:9093",
            "group.id=connect-cluster",
            "security.protocol=SASL_SSL",
            "sasl.mechanism=PLAIN",
            "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required;",
            "config.storage.topic=connect-configs"));
    Map<String, String> worker =
        WorkerProperties.of(
            "org.apache.kafka.connect.cli.ConnectDistributed " + file + " --override x=y");
    assertThat(worker).containsEntry("bootstrap.servers", "broker-1:9093,broker-2:9093");
    assertThat(WorkerProperties.of("org.example.Main " + file)).isEmpty();
    assertThat(WorkerProperties.of(null)).isEmpty();

    Map<String, String> config = staticRest();
    config.remove("iceberg.kafka.bootstrap.servers");
    config.remove("iceberg.kafka.security.protocol");
    Translation t = ApacheConfigTranslation.translate(config, () -> worker);
    assertThat(t.props())
        .containsEntry("kafka.bootstrap.servers", "broker-1:9093,broker-2:9093")
        .containsEntry("kafka.security.protocol", "SASL_SSL")
        .containsEntry("kafka.sasl.mechanism", "PLAIN")
        .doesNotContainKeys(
            "kafka.sasl.jaas.config", "kafka.group.id", "kafka.config.storage.topic");
    assertThat(t.errors()).containsOnlyKeys("kafka.sasl.jaas.config");
    assertThat(t.errors().get("kafka.sasl.jaas.config").get(0))
        .contains("iceberg.kafka.sasl.jaas.config")
        .doesNotContain("PlainLoginModule");

    config.put("iceberg.kafka.sasl.jaas.config", "${file:/secrets/kafka.properties:jaas}");
    assertThat(ApacheConfigTranslation.translate(config, () -> worker).errors()).isEmpty();
  }

  @Test
  void ourOwnConfigsAreLeftAsTheyAre() {
    Map<String, String> ours =
        Map.of(
            "topics", "orders",
            "iceberg.write-buffer-bytes", "67108864",
            "catalogs", "local");
    assertThat(ApacheConfigTranslation.applies(ours)).isFalse();
    assertThat(ApacheConfigTranslation.translate(ours, Map::of).props()).isSameAs(ours);
  }

  @Test
  void theConnectorHandsItsTasksTheTranslatedConfig() {
    StreamhouseSinkConnector connector = new StreamhouseSinkConnector();
    connector.start(routeRegexJdbc());
    assertThat(connector.taskConfigs(2))
        .allSatisfy(
            c ->
                assertThat(c)
                    .containsEntry("routes", "db_clicks,db_views")
                    .containsEntry("route.db_views.match.field", "meta.type")
                    .containsEntry("route.db_views.match.regex", "view")
                    .containsEntry("catalogs", "lake")
                    .containsEntry("kafka.bootstrap.servers", "kafka:9092")
                    .doesNotContainKeys("iceberg.tables", "iceberg.catalog.uri"));
  }

  private static List<TableId> tablesOf(TableRouter router, String type) throws Exception {
    Schema meta =
        SchemaBuilder.struct().field("type", Schema.OPTIONAL_STRING_SCHEMA).optional().build();
    Schema value =
        SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).field("meta", meta).build();
    Struct struct = new Struct(value).put("id", 1L).put("meta", new Struct(meta).put("type", type));
    return router.route(new SinkRecord("events.web", 0, null, null, value, struct, 0)).stream()
        .map(TableRouter.Destination::table)
        .toList();
  }

  private static SinkRecord record(String topic, Map<String, Object> value) {
    return new SinkRecord(topic, 0, null, null, null, value, 0);
  }

  /** {@code given} translated, as the connector translates it, then read as our config. */
  private static StreamhouseSinkConfig config(Map<String, String> given) {
    return new StreamhouseSinkConfig(props(given));
  }

  /** {@code given} under our keys (no worker properties: this JVM is no Connect worker). */
  private static Map<String, String> props(Map<String, String> given) {
    return ApacheConfigTranslation.translate(given, Map::of).props();
  }

  /** The config values with errors that the connector's validate() gives for {@code config}. */
  private static List<ConfigValue> errors(Map<String, String> config) {
    return new StreamhouseSinkConnector()
        .validate(config).configValues().stream()
            .filter(v -> !v.errorMessages().isEmpty())
            .toList();
  }
}
