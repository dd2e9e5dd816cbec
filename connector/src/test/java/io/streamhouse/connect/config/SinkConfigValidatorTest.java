package io.streamhouse.connect.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.StreamhouseSinkConnector;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

class SinkConfigValidatorTest {
  /** A valid connector config (one JDBC catalog, one route) with {@code pairs} put on top. */
  static Map<String, String> config(String... pairs) {
    Map<String, String> props = new HashMap<>();
    props.put("name", "orders-sink");
    props.put("connector.class", StreamhouseSinkConnector.class.getName());
    props.put("topics", "orders");
    props.put("kafka.bootstrap.servers", "localhost:9092");
    props.put("catalogs", "local");
    props.put("catalog.local.uri", "jdbc:sqlite:/tmp/c.db");
    props.put("catalog.local.warehouse", "/tmp/wh");
    props.put("routes", "r");
    props.put("route.r.topics", "orders,ctl");
    for (int i = 0; i < pairs.length; i += 2) {
      props.put(pairs[i], pairs[i + 1]);
    }
    return props;
  }

  private static List<String> errorsOf(Config config, String key) {
    return config.configValues().stream()
        .filter(v -> v.name().equals(key))
        .findFirst()
        .map(ConfigValue::errorMessages)
        .orElseThrow();
  }

  @Test
  void faultInjectionIsRefusedUnlessTheWorkerJvmAllowsIt() {
    Map<String, String> armed = config("streamhouse.test.halt-at", "BEFORE_PREPARE:/tmp/marker");
    String before = System.getProperty(SinkConfigDef.FAULT_INJECTION_PROPERTY);
    try {
      System.clearProperty(SinkConfigDef.FAULT_INJECTION_PROPERTY);
      assertThat(
              errorsOf(new StreamhouseSinkConnector().validate(armed), "streamhouse.test.halt-at"))
          .singleElement()
          .asString()
          .contains("-Dstreamhouse.fault-injection=enabled");
      assertThatThrownBy(
              () ->
                  io.streamhouse.connect.commit.FaultInjection.parse("BEFORE_PREPARE:/tmp/marker"))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("test-only fault injection");
      System.setProperty(SinkConfigDef.FAULT_INJECTION_PROPERTY, "enabled");
      assertThat(
              errorsOf(new StreamhouseSinkConnector().validate(armed), "streamhouse.test.halt-at"))
          .isEmpty();
      assertThat(io.streamhouse.connect.commit.FaultInjection.parse("BEFORE_PREPARE:/tmp/marker"))
          .isNotNull();
    } finally {
      if (before == null) {
        System.clearProperty(SinkConfigDef.FAULT_INJECTION_PROPERTY);
      } else {
        System.setProperty(SinkConfigDef.FAULT_INJECTION_PROPERTY, before);
      }
    }
  }

  @Test
  void theDeadLetterTableNamesATableOfTheConnectorAndNeedsToleranceAll() {
    String key = ErrorsConfigDef.DEAD_LETTER_TABLE_CONFIG;
    StreamhouseSinkConnector connector = new StreamhouseSinkConnector();
    assertThat(
            errorsOf(
                connector.validate(
                    config("errors.tolerance", "all", key, "local.errors.dead_letters")),
                key))
        .isEmpty();
    assertThat(
            new StreamhouseSinkConfig(config("errors.tolerance", "all", key, "errors.dead_letters"))
                .deadLetterTable()
                .orElseThrow()
                .toString())
        .as("the only catalog")
        .isEqualTo("local:errors.dead_letters");
    assertThat(errorsOf(connector.validate(config(key, "local.errors.dead_letters")), key))
        .singleElement()
        .asString()
        .contains("needs errors.tolerance=all");
    assertThat(
            errorsOf(
                connector.validate(config("errors.tolerance", "all", key, "dead_letters")), key))
        .singleElement()
        .asString()
        .contains("does not name a table of one of the catalogs [local]");
    assertThat(
            errorsOf(
                connector.validate(
                    config(
                        "errors.tolerance",
                        "all",
                        "catalog.local.format",
                        "paimon",
                        "catalog.local.type",
                        "filesystem",
                        key,
                        "local.errors.dead_letters")),
                key))
        .as("a Paimon catalog takes it too")
        .isEmpty();
  }

  /** Two catalogs, Iceberg {@code local} and Paimon {@code lake}, with {@code pairs} on top. */
  private static Map<String, String> twoCatalogs(String... pairs) {
    Map<String, String> props =
        config(
            "errors.tolerance",
            "all",
            "catalogs",
            "local,lake",
            "catalog.lake.format",
            "paimon",
            "catalog.lake.type",
            "filesystem",
            "catalog.lake.warehouse",
            "/tmp/lake",
            "route.r.catalog",
            "local");
    for (int i = 0; i < pairs.length; i += 2) {
      props.put(pairs[i], pairs[i + 1]);
    }
    return props;
  }

  @Test
  void theDeadLetterCatalogIsNamedByItsKeyOrTheTablesFirstPartAndMustHoldSuchATable() {
    String table = ErrorsConfigDef.DEAD_LETTER_TABLE_CONFIG;
    String catalog = ErrorsConfigDef.DEAD_LETTER_CATALOG_CONFIG;
    StreamhouseSinkConnector connector = new StreamhouseSinkConnector();
    Map<String, String> byKey = twoCatalogs(catalog, "lake", table, "errors.dead_letters");
    assertThat(errorsOf(connector.validate(byKey), table)).isEmpty();
    assertThat(errorsOf(connector.validate(byKey), catalog)).isEmpty();
    assertThat(new StreamhouseSinkConfig(byKey).deadLetterTable().orElseThrow().toString())
        .isEqualTo("lake:errors.dead_letters");
    assertThat(
            new StreamhouseSinkConfig(twoCatalogs(table, "lake.errors.dead_letters"))
                .deadLetterTable()
                .orElseThrow()
                .toString())
        .as("the first part names the catalog")
        .isEqualTo("lake:errors.dead_letters");
    assertThat(
            new StreamhouseSinkConfig(twoCatalogs(catalog, "local", table, "errors.dead_letters"))
                .deadLetterRoute()
                .orElseThrow()
                .catalog())
        .isEqualTo("local");

    assertThat(errorsOf(connector.validate(twoCatalogs(table, "errors.dead_letters")), table))
        .singleElement()
        .asString()
        .contains("does not name a table of one of the catalogs [local, lake]")
        .contains(catalog);
    assertThat(
            errorsOf(
                connector.validate(twoCatalogs(catalog, "sea", table, "errors.dead_letters")),
                catalog))
        .singleElement()
        .asString()
        .contains("catalog 'sea' of the dead-letter table is not one of [local, lake]");
    assertThat(
            errorsOf(
                connector.validate(twoCatalogs(catalog, "lake", table, "lake.errors.dead_letters")),
                table))
        .singleElement()
        .asString()
        .contains("does not name a table of catalog lake")
        .contains("without the catalog");
    assertThat(errorsOf(connector.validate(twoCatalogs(catalog, "lake")), catalog))
        .singleElement()
        .asString()
        .contains("names the catalog of " + table + ", which is not set");
  }

  @Test
  void aPaimonDeadLetterTableHasOneNamespaceLevelAnIcebergOneMayHaveMore() {
    String table = ErrorsConfigDef.DEAD_LETTER_TABLE_CONFIG;
    StreamhouseSinkConnector connector = new StreamhouseSinkConnector();
    assertThat(
            errorsOf(connector.validate(twoCatalogs(table, "lake.ops.errors.dead_letters")), table))
        .singleElement()
        .asString()
        .contains("lake:ops.errors.dead_letters is in Paimon catalog 'lake'")
        .contains("exactly one namespace level (the database)")
        .contains("write <database>.<table>");
    assertThat(
            errorsOf(
                connector.validate(twoCatalogs(table, "local.ops.errors.dead_letters")), table))
        .isEmpty();
  }

  @Test
  void aFormatThatIsNoFormatIsReportedOnceAndNoFormatIsGuessedForItsRoutes() {
    Config result =
        new StreamhouseSinkConnector()
            .validate(
                config(
                    "catalog.local.format",
                    "delta",
                    "route.r.input",
                    "debezium",
                    "route.r.primary-key",
                    "id"));
    assertThat(errorsOf(result, "catalog.local.format"))
        .singleElement()
        .asString()
        .contains("must be one of (case insensitive): ICEBERG, PAIMON");
    assertThat(errorsOf(result, "route.r.input")).as("not judged as an Iceberg route").isEmpty();
    assertThat(errorsOf(result, "route.r.primary-key")).isEmpty();
    assertThat(
            errorsOf(
                new StreamhouseSinkConnector().validate(config("route.r.input", "debezium")),
                "route.r.input"))
        .as("no format set: the default, iceberg, whose keyed tables take Debezium changes")
        .isEmpty();
  }

  @Test
  void aKeyedIcebergRouteIsPartitionedByKeyColumnsOnly() {
    Config byOther =
        new StreamhouseSinkConnector()
            .validate(config("route.r.primary-key", "id", "route.r.partition-by", "day(ts)"));
    assertThat(errorsOf(byOther, "route.r.partition-by"))
        .singleElement()
        .asString()
        .contains("partitioned by key columns only")
        .contains("'day(ts)'");
    Config byKey =
        new StreamhouseSinkConnector()
            .validate(config("route.r.primary-key", "id", "route.r.partition-by", "bucket(8,id)"));
    assertThat(errorsOf(byKey, "route.r.partition-by")).isEmpty();
  }

  @Test
  void icebergCompatibleIsForPaimonRoutesOnly() {
    String key = "route.r.iceberg-compatible";
    assertThat(errorsOf(new StreamhouseSinkConnector().validate(config(key, "true")), key))
        .as("the default format, iceberg")
        .singleElement()
        .asString()
        .contains("route r: iceberg-compatible makes Paimon tables readable");
    assertThat(
            errorsOf(
                new StreamhouseSinkConnector()
                    .validate(config("catalog.local.format", "iceberg", key, "false")),
                key))
        .isEmpty();
    assertThat(errorsOf(new StreamhouseSinkConnector().validate(config(key, "sometimes")), key))
        .singleElement()
        .asString()
        .contains("Expected value to be either true or false");
    Map<String, String> paimon =
        config("catalog.local.format", "paimon", "catalog.local.type", "filesystem", key, "TRUE");
    Config result = new StreamhouseSinkConnector().validate(paimon);
    assertThat(result.configValues()).allSatisfy(v -> assertThat(v.errorMessages()).isEmpty());
    assertThat(new StreamhouseSinkConfig(paimon).routes().get(0).icebergCompatible()).isTrue();
    assertThat(new StreamhouseSinkConfig(config()).routes().get(0).icebergCompatible()).isFalse();
  }

  @Test
  void atomicCommitsAreForIcebergRestCatalogsOnly() {
    String key = "catalog.local.commit.atomic";
    assertThat(errorsOf(new StreamhouseSinkConnector().validate(config(key, "true")), key))
        .as("the default catalog type, jdbc")
        .singleElement()
        .asString()
        .contains("catalog local: atomic commits need an Iceberg REST catalog")
        .contains("iceberg jdbc catalog");
    Map<String, String> paimonRest =
        config("catalog.local.format", "paimon", "catalog.local.type", "rest", key, "true");
    assertThat(errorsOf(new StreamhouseSinkConnector().validate(paimonRest), key))
        .singleElement()
        .asString()
        .contains("paimon rest catalog");
    Map<String, String> rest =
        config(
            "catalog.local.type",
            "rest",
            "catalog.local.uri",
            "http://nessie:19120/iceberg",
            "catalog.local.warehouse",
            "warehouse",
            key,
            "true");
    Config result = new StreamhouseSinkConnector().validate(rest);
    assertThat(result.configValues()).allSatisfy(v -> assertThat(v.errorMessages()).isEmpty());
    StreamhouseSinkConfig parsed = new StreamhouseSinkConfig(rest);
    assertThat(parsed.catalogs().get(0).atomicCommits()).isTrue();
    assertThat(parsed.catalogs().get(0).properties())
        .as("a key of the connector, not of the catalog")
        .doesNotContainKey("commit.atomic");
    assertThat(new StreamhouseSinkConfig(config()).catalogs().get(0).atomicCommits()).isFalse();
  }

  @Test
  void aValidConfigHasNoErrors() {
    Config result = new StreamhouseSinkConnector().validate(config());
    assertThat(result.configValues()).allSatisfy(v -> assertThat(v.errorMessages()).isEmpty());
  }

  @Test
  void typeAndRangeErrorsAreAttachedToTheirKeys() {
    Config result =
        new StreamhouseSinkConnector()
            .validate(
                config(
                    "commit.interval.ms",
                    "soon",
                    "commit.timeout.ms",
                    "5",
                    "control.topic",
                    "bad topic!"));
    assertThat(errorsOf(result, "commit.interval.ms"))
        .anySatisfy(e -> assertThat(e).contains("Not a number of type LONG"));
    assertThat(errorsOf(result, "commit.timeout.ms"))
        .singleElement()
        .asString()
        .contains("at least 100");
    assertThat(errorsOf(result, "control.topic"))
        .singleElement()
        .asString()
        .contains("legal Kafka topic name");
  }

  @Test
  void withTransformsTheTablesOfARecordMayNotFollowFromItsPartition() {
    assertThat(new StreamhouseSinkConfig(config()).transformsRecords()).isFalse();
    assertThat(new StreamhouseSinkConfig(config("transforms", " ")).transformsRecords()).isFalse();
    assertThat(
            new StreamhouseSinkConfig(
                    config(
                        "transforms",
                        "route",
                        "transforms.route.type",
                        "org.apache.kafka.connect.transforms.RegexRouter"))
                .transformsRecords())
        .isTrue();
  }

  @Test
  void theControlTopicMustNotBeSunk() {
    Config listed =
        new StreamhouseSinkConnector()
            .validate(config("topics", "orders, ctl", "control.topic", "ctl"));
    assertThat(errorsOf(listed, "control.topic"))
        .singleElement()
        .asString()
        .isEqualTo(
            "control.topic 'ctl' is also listed in topics: the control topic must not be sunk");

    Map<String, String> byRegex = config("control.topic", "streamhouse-control");
    byRegex.remove("topics");
    byRegex.put("topics.regex", "stream.*");
    assertThat(errorsOf(new StreamhouseSinkConnector().validate(byRegex), "control.topic"))
        .singleElement()
        .asString()
        .contains("matches topics.regex 'stream.*'");
  }

  @Test
  void startFailsWithEveryErrorAndTheConnectorName() {
    Map<String, String> props =
        config("topics", "ctl", "control.topic", "ctl", "commit.timeout.ms", "1");
    assertThatThrownBy(() -> new StreamhouseSinkConnector().start(props))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("Connector orders-sink has an invalid configuration: ")
        .hasMessageContaining("commit.timeout.ms")
        .hasMessageContaining("the control topic must not be sunk");
  }

  @Test
  void typedAccessorsReadTheValues() {
    StreamhouseSinkConfig cfg =
        new StreamhouseSinkConfig(
            config("commit.interval.ms", "1500", "control.topic", "ctl", "task.id", "3"));
    assertThat(cfg.connectorName()).isEqualTo("orders-sink");
    assertThat(cfg.commitIntervalMs()).isEqualTo(1500L);
    assertThat(cfg.commitTimeoutMs()).isEqualTo(30_000L);
    assertThat(cfg.controlTopic()).isEqualTo("ctl");
    assertThat(cfg.taskId()).isEqualTo(3);
  }

  @Test
  void kafkaMetadataTakesKnownFieldsOnceAndAColumnOutsideKeysAndPartitions() {
    StreamhouseSinkConfig cfg =
        new StreamhouseSinkConfig(
            config("route.r.kafka-metadata", "topic, OFFSET,headers", "route.r.partition-by", ""));
    assertThat(cfg.routes().get(0).kafkaMetadata())
        .isEqualTo(
            new io.streamhouse.connect.decode.KafkaMetadata(
                "_kafka",
                java.util.Set.of(
                    io.streamhouse.connect.decode.KafkaMetadata.Part.TOPIC,
                    io.streamhouse.connect.decode.KafkaMetadata.Part.OFFSET,
                    io.streamhouse.connect.decode.KafkaMetadata.Part.HEADERS)));
    assertThat(new StreamhouseSinkConfig(config()).routes().get(0).kafkaMetadata().enabled())
        .isFalse();

    Config unknown =
        new StreamhouseSinkConnector().validate(config("route.r.kafka-metadata", "offset,value"));
    assertThat(errorsOf(unknown, "route.r.kafka-metadata"))
        .singleElement()
        .asString()
        .contains("'value' is not one of [topic, partition, offset, timestamp, key, headers]");
    Config twice =
        new StreamhouseSinkConnector().validate(config("route.r.kafka-metadata", "key,Key"));
    assertThat(errorsOf(twice, "route.r.kafka-metadata"))
        .singleElement()
        .asString()
        .contains("'Key' is listed twice");
    Config badName =
        new StreamhouseSinkConnector()
            .validate(
                config(
                    "route.r.kafka-metadata",
                    "key",
                    "route.r.kafka-metadata.column",
                    "kafka.meta"));
    assertThat(errorsOf(badName, "route.r.kafka-metadata.column"))
        .singleElement()
        .asString()
        .contains("is not a column name");
    Config inPartition =
        new StreamhouseSinkConnector()
            .validate(
                config(
                    "route.r.kafka-metadata",
                    "offset",
                    "route.r.kafka-metadata.column",
                    "meta",
                    "route.r.partition-by",
                    "meta"));
    assertThat(errorsOf(inPartition, "route.r.kafka-metadata.column"))
        .singleElement()
        .asString()
        .contains("route r: the Kafka metadata column 'meta' is a value column")
        .contains("route.r.partition-by");
    Config inKey =
        new StreamhouseSinkConnector()
            .validate(
                config(
                    "catalog.local.format",
                    "paimon",
                    "route.r.kafka-metadata",
                    "offset",
                    "route.r.primary-key",
                    "id,_kafka"));
    assertThat(errorsOf(inKey, "route.r.kafka-metadata.column"))
        .singleElement()
        .asString()
        .contains("cannot be in route.r.primary-key");
  }
}
