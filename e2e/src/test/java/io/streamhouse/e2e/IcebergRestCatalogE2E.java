package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The production catalog path: config-examples/iceberg-rest.json against a real REST catalog
 * server.
 */
@ExtendWith(LocalStackExtension.class)
class IcebergRestCatalogE2E {
  private static IcebergRestCatalogServer server;

  @BeforeAll
  static void startCatalog(LocalStack stack) {
    server =
        IcebergRestCatalogServer.start(
            stack.runDir(), E2eSettings.workDir().resolve("kafka-dists"), E2eSettings.mavenCmd());
  }

  @AfterAll
  static void stopCatalog() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void theRestExampleWritesEveryRecordOnceThroughARestCatalog(LocalStack stack) {
    String topic = "events.clicks";
    stack.createTopic(topic, 3, Map.of());
    ConnectorExample example =
        ConnectorExample.load(
            E2eSettings.repoRoot().resolve("config-examples/iceberg-rest.json"),
            Map.of(
                "KAFKA_BOOTSTRAP_SERVERS",
                stack.bootstrapServers(),
                "ICEBERG_REST_URI",
                server.uri()));
    Map<String, String> config = new HashMap<>(example.config());
    config.remove(
        "catalog.lake.credential"); // the test server has no OAuth; the worker no config provider
    config.put("tasks.max", "2");
    config.put("commit.interval.ms", "2000");
    config.put("route.events.partition-by", "hour(created_at), bucket(16, id)");
    config.put("errors.deadletterqueue.topic.replication.factor", "1");
    stack.connect().putConfig(example.name(), config);

    Set<Long> produced = new HashSet<>();
    IcebergFaultsE2E.produce(stack, topic, 0, 5_000, produced);

    String table = "raw.events_clicks";
    try (IcebergTables tables = IcebergTables.rest(server.uri())) {
      awaitEveryRecordOnce(stack, tables, example.name(), table, produced);
      assertThat(tables.table(table).spec().fields())
          .extracting(f -> f.transform().toString())
          .containsExactly("hour", "bucket[16]");
      assertThat(tables.table(table).properties())
          .containsEntry("write.parquet.compression-codec", "zstd");
    }
    stack.connect().delete(example.name());
  }

  /**
   * Waits until the watermarks of {@code table} cover {@code produced}; then each id is in it once.
   */
  static void awaitEveryRecordOnce(
      LocalStack stack, IcebergTables tables, String connector, String table, Set<Long> produced) {
    await()
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofSeconds(1))
        .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, connector))
        .untilAsserted(
            () -> {
              assertThat(tables.exists(table)).isTrue();
              assertThat(
                      tables.watermarks(table, connector).values().stream()
                          .mapToLong(Long::longValue)
                          .sum())
                  .isEqualTo(produced.size());
            });
    assertThat(tables.rows(table))
        .extracting(r -> (Long) r.get("id"))
        .doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(produced);
  }
}
