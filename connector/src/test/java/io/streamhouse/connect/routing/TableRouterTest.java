package io.streamhouse.connect.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.converter.JsonPayloads;
import io.streamhouse.connect.decode.KafkaMetadata;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.schema.EvolutionMode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** Which tables every record of a topic goes to, known without a record only for static routes. */
class TableRouterTest {
  @Test
  void staticRoutesNameTheTablesOfATopicBeforeAnyRecordArrives() {
    TableRouter router =
        new TableRouter(
            List.of(
                route(
                    "orders",
                    List.of("orders"),
                    Optional.empty(),
                    "sales.orders",
                    Optional.empty()),
                route(
                    "mirror",
                    List.of(),
                    Optional.of(Pattern.compile("ord.*")),
                    "raw.${topic}",
                    Optional.empty())));

    assertThat(router.staticDestinations("orders"))
        .hasValueSatisfying(
            d ->
                assertThat(d)
                    .extracting(TableRouter.Destination::table)
                    .containsExactly(
                        new TableId("lake", List.of("sales"), "orders"),
                        new TableId("lake", List.of("raw"), "orders")));
    assertThat(router.staticDestinations("ordinals"))
        .hasValueSatisfying(
            d ->
                assertThat(d)
                    .extracting(TableRouter.Destination::table)
                    .containsExactly(new TableId("lake", List.of("raw"), "ordinals")));
    assertThat(router.staticDestinations("payments")).as("no route takes it").isEmpty();
  }

  @Test
  void aRouteThatTakesTheTableFromARecordFieldLeavesTheTablesOfItsTopicsUnknown() {
    TableRouter router =
        new TableRouter(
            List.of(
                route(
                    "orders",
                    List.of("orders"),
                    Optional.empty(),
                    "sales.orders",
                    Optional.empty()),
                route(
                    "events",
                    List.of("orders", "events"),
                    Optional.empty(),
                    "",
                    Optional.of("kind"))));

    assertThat(router.staticDestinations("orders")).isEmpty();
    assertThat(router.staticDestinations("events")).isEmpty();
  }

  @Test
  void aQualifiedFieldNamesTheNamespaceTooAndAPlainOneStaysOneName() throws Exception {
    RouteSettings plain = route("plain", List.of("t"), Optional.empty(), "", Optional.of("target"));
    RouteSettings qualified =
        new RouteSettings(
            plain.name(),
            plain.topics(),
            plain.topicsRegex(),
            plain.catalog(),
            plain.table(),
            plain.tableField(),
            Optional.of(Pattern.compile("db\\..*")),
            plain.namespace(),
            plain.autoCreate(),
            plain.partitionBy(),
            plain.fileFormat(),
            plain.targetFileSizeBytes(),
            plain.tableProperties(),
            plain.primaryKey(),
            plain.input(),
            plain.buckets(),
            plain.schemaEvolution(),
            plain.icebergCompatible(),
            true,
            Optional.empty(),
            KafkaMetadata.NONE,
            2,
            false,
            Optional.empty());
    org.apache.kafka.connect.sink.SinkRecord record =
        new org.apache.kafka.connect.sink.SinkRecord(
            "t", 0, null, null, null, Map.of("target", "DB.F0"), 0);

    assertThat(new TableRouter(List.of(plain)).route(record))
        .extracting(TableRouter.Destination::table)
        .containsExactly(new TableId("lake", List.of("default"), "db_f0"));
    assertThat(new TableRouter(List.of(qualified)).route(record))
        .extracting(TableRouter.Destination::table)
        .containsExactly(new TableId("lake", List.of("db"), "f0"));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                new TableRouter(List.of(qualified))
                    .route(
                        new org.apache.kafka.connect.sink.SinkRecord(
                            "t", 0, null, null, null, Map.of("target", "raw.f0"), 0)))
        .hasMessageContaining("'raw.f0'")
        .hasMessageContaining("allow-regex");
  }

  @Test
  void aMatchTakesOnlyRecordsWhoseFieldFullyMatchesAndKeepsTheTopicsTablesUnknown()
      throws Exception {
    RouteSettings base =
        route("clicks", List.of("t"), Optional.empty(), "db.clicks", Optional.empty());
    RouteSettings clicks =
        new RouteSettings(
            base.name(),
            base.topics(),
            base.topicsRegex(),
            base.catalog(),
            base.table(),
            base.tableField(),
            base.tableAllowRegex(),
            base.namespace(),
            base.autoCreate(),
            base.partitionBy(),
            base.fileFormat(),
            base.targetFileSizeBytes(),
            base.tableProperties(),
            base.primaryKey(),
            base.input(),
            base.buckets(),
            base.schemaEvolution(),
            base.icebergCompatible(),
            false,
            Optional.of(new RouteSettings.FieldMatch("a.kind", Pattern.compile("click"))),
            KafkaMetadata.NONE,
            2,
            false,
            Optional.empty());
    TableRouter router = new TableRouter(List.of(clicks));
    assertThat(router.staticDestinations("t")).isEmpty();
    assertThat(
            router.route(
                new org.apache.kafka.connect.sink.SinkRecord(
                    "t", 0, null, null, null, Map.of("a", Map.of("kind", "click")), 0)))
        .extracting(TableRouter.Destination::table)
        .containsExactly(new TableId("lake", List.of("db"), "clicks"));
    assertThat(
            router.route(
                new org.apache.kafka.connect.sink.SinkRecord(
                    "t", 0, null, null, null, Map.of("a", Map.of("kind", "clicks")), 0)))
        .isEmpty();
    assertThat(
            router.route(
                new org.apache.kafka.connect.sink.SinkRecord(
                    "t", 0, null, null, null, Map.of("a.kind", "click"), 0)))
        .as("a top-level field named a.kind counts first")
        .hasSize(1);
  }

  @Test
  void aStructAConverterDecodedIsRoutedByItsFieldsWithoutBeingMade() throws Exception {
    Struct value = JsonPayloads.secondReading(JsonPayloads.order("Ann", "orders_eu"));
    SinkRecord record = new SinkRecord("t", 0, null, null, value.schema(), value, 0);
    Map<String, String> tableByField =
        Map.of("note", "orders_eu", "customer.name", "ann", "scores.k", "v");
    for (Map.Entry<String, String> e : tableByField.entrySet()) {
      TableRouter router =
          new TableRouter(
              List.of(route("r", List.of("t"), Optional.empty(), "", Optional.of(e.getKey()))));
      assertThat(router.route(record))
          .extracting(TableRouter.Destination::table)
          .as(e.getKey())
          .containsExactly(new TableId("lake", List.of("default"), e.getValue()));
    }
    assertThat(JsonPayloads.unmade(value)).as("read without the Struct").isTrue();
  }

  private static RouteSettings route(
      String name,
      List<String> topics,
      Optional<Pattern> regex,
      String table,
      Optional<String> tableField) {
    return new RouteSettings(
        name,
        topics,
        regex,
        "lake",
        table,
        tableField,
        tableField.map(f -> Pattern.compile(".*")),
        "default",
        true,
        List.of(),
        "parquet",
        1L << 20,
        Map.of(),
        List.of(),
        io.streamhouse.connect.decode.InputMode.UPSERT,
        1,
        EvolutionMode.NONE,
        false,
        false,
        Optional.empty(),
        KafkaMetadata.NONE,
        2,
        false,
        Optional.empty());
  }
}
