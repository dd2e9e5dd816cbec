package io.streamhouse.connect.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.schema.EvolutionMode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
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
        io.streamhouse.connect.convert.InputMode.UPSERT,
        1,
        EvolutionMode.NONE,
        false);
  }
}
