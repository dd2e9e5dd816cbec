package io.streamhouse.connect.testing;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.decode.InputMode;
import io.streamhouse.connect.decode.KafkaMetadata;
import io.streamhouse.connect.schema.EvolutionMode;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Routes for tests that need one without a connector config. */
public final class TestRoutes {
  private TestRoutes() {}

  /** Route "r": topic "t" to table "ns.t" of catalog "c", auto-created, no schema evolution. */
  public static RouteSettings topicTToTableNsT() {
    return new RouteSettings(
        "r",
        List.of("t"),
        Optional.empty(),
        "c",
        "ns.t",
        Optional.empty(),
        Optional.empty(),
        "ns",
        true,
        List.of(),
        "parquet",
        1L << 20,
        Map.of(),
        List.of(),
        InputMode.UPSERT,
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
