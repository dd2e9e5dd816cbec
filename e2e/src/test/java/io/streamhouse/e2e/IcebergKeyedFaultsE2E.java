package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamhouse.connect.commit.FaultInjection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A keyed Iceberg table through a worker halted (as by kill -9) at each point of the commit
 * protocol and of maintenance (expiry, compaction applying deletes): after the restart the table
 * holds exactly the latest row of every key, no replayed batch deleted a live row, and every delete
 * is by position. The points alternate between format version 2 (position delete files) and 3
 * (deletion vectors). {@code BEFORE_PREPARE} is left to {@link IcebergFaultsE2E}: the task halts
 * before it touches a writer, which is the same for keyed and append tables.
 */
@ExtendWith(LocalStackExtension.class)
class IcebergKeyedFaultsE2E {
  private static final int CHANGES = 16_000;
  private static final int KEYS = 2_000;

  @ParameterizedTest(name = "halt at {0}")
  @EnumSource(
      value = FaultInjection.Point.class,
      names = {"BEFORE_PREPARE"},
      mode = EnumSource.Mode.EXCLUDE)
  void aKeyedTableHaltedAtEachPointEqualsTheModel(FaultInjection.Point point, LocalStack stack) {
    String name = "keyed-" + point.name().toLowerCase(Locale.ROOT).replace('_', '-');
    String topic = name;
    stack.createTopic(topic, 4, Map.of());
    Path marker = stack.runDir().resolve("halted-" + name);
    int formatVersion = point.ordinal() % 2 == 0 ? 2 : 3;
    // Maintenance expires and compacts every second, so that its points are reached and the commit
    // points are reached with maintenance running; compaction rewrites files with their deletes.
    ConnectorExample sink =
        IcebergUpsertE2E.keyedConfig(
            stack,
            name,
            topic,
            Map.of(
                "route.orders.primary-key",
                "id",
                "route.orders.format-version",
                Integer.toString(formatVersion),
                "streamhouse.test.halt-at",
                point.name() + ":" + marker,
                "maintenance.interval.ms",
                "1000",
                "maintenance.expire.max-age.ms",
                "1",
                "maintenance.expire.min-snapshots",
                "1",
                "maintenance.compact.min-input-files",
                "2"));
    SampleCustomers source = new SampleCustomers(point.ordinal() + 3, KEYS, 0.2);
    PaimonSink.produce(stack, topic, source, CHANGES / 4, SampleCustomers::upsertValue);
    stack.connect().putConfig(sink.name(), sink.config());
    try {
      ManagedProcess worker = stack.worker().process();
      if (point == FaultInjection.Point.AFTER_EXPIRY_COMMIT
          || point == FaultInjection.Point.BEFORE_REWRITE_COMMIT) {
        // An expiry needs a second snapshot, a rewrite a second file: the rest after the first
        // commit (or once the worker halted already: maintenance may get there first).
        String table = IcebergSink.tableOf(topic);
        try (IcebergTables tables = IcebergSink.tables(stack)) {
          await()
              .atMost(Duration.ofMinutes(5))
              .pollInterval(Duration.ofMillis(500))
              .until(
                  () ->
                      !worker.isAlive()
                          || (tables.exists(table)
                              && !tables.watermarks(table, sink.name()).isEmpty()));
        }
      }
      PaimonSink.produce(stack, topic, source, CHANGES / 4, SampleCustomers::upsertValue);

      assertThat(worker.awaitExit(Duration.ofMinutes(3)))
          .as("the worker halted at %s", point)
          .isTrue();
      assertThat(marker).exists();
      // While the worker is down; then its tasks read their key indexes again.
      PaimonSink.produce(stack, topic, source, CHANGES / 2, SampleCustomers::upsertValue);
      stack.worker().restart(Duration.ofMinutes(2));

      try (IcebergTables tables = IcebergSink.tables(stack)) {
        IcebergUpsertE2E.awaitAllCommittedAndCheck(
            stack, tables, sink.name(), topic, source.state());
        assertThat(
                org.apache.iceberg.TableUtil.formatVersion(
                    tables.table(IcebergSink.tableOf(topic))))
            .isEqualTo(formatVersion);
      }
    } finally {
      deleteIfRunning(stack, sink.name());
    }
  }

  /** Deletes the connector; a failure (the worker halted for good) must not hide the test's. */
  private static void deleteIfRunning(LocalStack stack, String connector) {
    try {
      stack.connect().delete(connector);
    } catch (RuntimeException e) {
      System.out.println("IcebergKeyedFaultsE2E: could not delete " + connector + ": " + e);
    }
  }
}
