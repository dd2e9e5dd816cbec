package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The lag monitor on a real worker, read over JMX: lag grows while the connector is paused, Kafka
 * deleting unread records (here with deleteRecords, which moves the log start exactly like
 * retention does) is counted and logged as data loss, and lag recovers after a resume.
 */
@ExtendWith(LocalStackExtension.class)
class LagMonitorE2E {
  @Test
  void lagGrowsWhilePausedDataLossIsCountedAndLagRecovers(LocalStack stack) throws Exception {
    String topic = "lagging";
    stack.createTopic(topic, 2, Map.of("retention.ms", "3600000"));
    ConnectorExample sink =
        IcebergSink.config(
            stack, "lagmon", topic, Map.of("tasks.max", "1", "lag.check-interval.ms", "1000"));
    stack.connect().putConfig(sink.name(), sink.config());
    Set<Long> produced = new HashSet<>();
    IcebergFaultsE2E.produce(stack, topic, 0, 200, produced);
    String mbeans =
        "kafka.connect:type=plugins,connector=lagmon,task=0,topic=" + topic + ",partition=*";

    try (WorkerJmx jmx = new WorkerJmx(stack.worker().process().pid())) {
      await()
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () ->
                  assertThat(jmx.values(mbeans, "partition", "lag-records"))
                      .containsOnlyKeys("0", "1")
                      .allSatisfy((p, lag) -> assertThat(lag).isZero()));
      // Table and task metrics of the same run.
      String table = "kafka.connect:type=plugins,connector=lagmon,task=0,table=*";
      assertThat(jmx.values(table, "table", "table-records-committed-total"))
          .containsExactly(Map.entry("\"local:e2e.lagging\"", 200.0));
      assertThat(jmx.values(table, "table", "table-commits-total").values())
          .allSatisfy(n -> assertThat(n).isPositive());
      assertThat(jmx.values(table, "table", "table-last-commit-age-seconds").values())
          .allSatisfy(age -> assertThat(age).isBetween(0.0, 60.0));
      assertThat(
              jmx.values(
                  "kafka.connect:type=plugins,connector=lagmon,task=0",
                  "task",
                  "task-records-written-total"))
          .containsEntry("0", 200.0);

      stack.connect().pause(sink.name());
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  stack
                      .connect()
                      .status(sink.name())
                      .path("connector")
                      .path("state")
                      .asText()
                      .equals("PAUSED"));
      IcebergFaultsE2E.produce(stack, topic, 200, 300, produced);
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                assertThat(
                        jmx.values(mbeans, "partition", "lag-records").values().stream()
                            .mapToDouble(Double::doubleValue)
                            .sum())
                    .isEqualTo(300.0);
                assertThat(jmx.values(mbeans, "partition", "seconds-to-data-loss"))
                    .allSatisfy((p, s) -> assertThat(s).isBetween(3000.0, 3600.0));
                assertThat(jmx.values(mbeans, "partition", "retention-time-used-ratio"))
                    .allSatisfy((p, r) -> assertThat(r).isBetween(0.0, 0.2));
              });

      // Kafka deletes records of partition 0 that the sink never read.
      long lost;
      try (Admin admin = stack.admin()) {
        TopicPartition p0 = new TopicPartition(topic, 0);
        long end = SinkProgress.endOffsets(admin, topic).get(p0);
        long committed =
            admin
                .listConsumerGroupOffsets("connect-lagmon")
                .partitionsToOffsetAndMetadata()
                .get()
                .get(p0)
                .offset();
        lost = end - committed;
        assertThat(lost).isPositive();
        admin.deleteRecords(Map.of(p0, RecordsToDelete.beforeOffset(end))).all().get();
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () ->
                  assertThat(jmx.values(mbeans, "partition", "data-loss-records-total"))
                      .containsEntry("0", (double) lost)
                      .containsEntry("1", 0.0));
      // The count and the log line come from another process: wait for the line rather than read it
      // once.
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () ->
                  assertThat(Files.readString(stack.worker().logFile()))
                      .contains("Connector lagmon: Kafka deleted records [")
                      .contains(
                          "of "
                              + topic
                              + "-0 before the sink read them: "
                              + lost
                              + " records lost"));

      stack.connect().resume(sink.name());
      await()
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () ->
                  assertThat(jmx.values(mbeans, "partition", "lag-records"))
                      .allSatisfy((p, lag) -> assertThat(lag).isZero()));
      // The loss is counted once, not again at every check.
      assertThat(jmx.values(mbeans, "partition", "data-loss-records-total"))
          .containsEntry("0", (double) lost);
    }
    stack.connect().delete(sink.name());
  }

  @Test
  void withOnDataLossFailTheConnectorStopsNamingThePartitionAndOffsets(LocalStack stack)
      throws Exception {
    String topic = "lagging-fail";
    stack.createTopic(topic, 1, Map.of());
    ConnectorExample sink =
        IcebergSink.config(
            stack,
            "lagfail",
            topic,
            Map.of("tasks.max", "1", "lag.check-interval.ms", "1000", "lag.on-data-loss", "fail"));
    stack.connect().putConfig(sink.name(), sink.config());
    IcebergFaultsE2E.produce(stack, topic, 0, 50, new HashSet<>());
    // Loss is measured from the connector's committed offset: wait until it has one.
    await()
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              try (Admin admin = stack.admin()) {
                var committed =
                    admin
                        .listConsumerGroupOffsets("connect-lagfail")
                        .partitionsToOffsetAndMetadata()
                        .get()
                        .get(new TopicPartition(topic, 0));
                return committed != null && committed.offset() == 50;
              }
            });
    stack.connect().pause(sink.name());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                stack
                    .connect()
                    .status(sink.name())
                    .path("connector")
                    .path("state")
                    .asText()
                    .equals("PAUSED"));
    IcebergFaultsE2E.produce(stack, topic, 50, 50, new HashSet<>());
    try (Admin admin = stack.admin()) {
      TopicPartition p0 = new TopicPartition(topic, 0);
      admin
          .deleteRecords(
              Map.of(
                  p0, RecordsToDelete.beforeOffset(SinkProgress.endOffsets(admin, topic).get(p0))))
          .all()
          .get();
    }
    stack.connect().resume(sink.name());
    await()
        .atMost(Duration.ofMinutes(1))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> IcebergExactlyOnceE2E.failed(stack, sink.name()));
    assertThat(stack.connect().status(sink.name()).path("tasks").get(0).path("trace").asText())
        .contains(
            "Connector lagfail: Kafka deleted records [",
            "of " + topic + "-0 before the sink read them",
            "lag.on-data-loss=fail stops the connector");
    stack.connect().delete(sink.name());
  }
}
