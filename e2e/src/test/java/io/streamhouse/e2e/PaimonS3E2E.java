package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * config-examples/paimon-cdc.json with its warehouse in an S3-compatible store (S3Mock): the plugin
 * writes Paimon tables through Paimon's S3 file IO, and Paimon's own reader sees the source table's
 * state there.
 */
@ExtendWith(LocalStackExtension.class)
class PaimonS3E2E {
  private static final String BUCKET = "lake";
  private static final int CHANGES = 10_000;

  @Test
  void debeziumChangesMirrorTheSourceInAPaimonWarehouseOnS3(LocalStack stack) throws Exception {
    try (S3CompatibleServer s3 =
        S3CompatibleServer.start(
            stack.runDir(),
            BUCKET,
            E2eSettings.workDir().resolve("kafka-dists"),
            E2eSettings.mavenCmd())) {
      String topic = "customers-s3";
      stack.createTopic(topic, 3, Map.of());
      Map<String, String> s3Options =
          Map.of(
              "warehouse",
              "s3://" + BUCKET + "/paimon",
              "s3.endpoint",
              s3.endpoint(),
              "s3.path.style.access",
              "true",
              "s3.access-key",
              S3CompatibleServer.ACCESS_KEY_ID,
              "s3.secret-key",
              S3CompatibleServer.SECRET_ACCESS_KEY);
      Map<String, String> overrides = new HashMap<>();
      s3Options.forEach((key, value) -> overrides.put("catalog.lake." + key, value));
      ConnectorExample sink = PaimonSink.config(stack, "paimon-s3", topic, overrides);
      SampleCustomers source = new SampleCustomers(21, 1_000, 0.15);
      PaimonSink.produce(stack, topic, source, CHANGES, SampleCustomers::debeziumValue);
      stack.connect().putConfig(sink.name(), sink.config());

      try (PaimonTables tables = PaimonTables.withOptions(s3Options)) {
        long end =
            PaimonSink.endOffsets(stack, topic).values().stream().mapToLong(Long::longValue).sum();
        await()
            .atMost(Duration.ofMinutes(3))
            .pollInterval(Duration.ofSeconds(1))
            .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, sink.name()))
            .until(
                () ->
                    PaimonSink.watermarkSum(tables, PaimonSink.tableOf(topic), sink.name()) == end);
        PaimonSink.awaitMirrors(stack, tables, sink.name(), topic, source.state());
        assertThat(tables.table(PaimonSink.tableOf(topic)).location().toString())
            .startsWith("s3://" + BUCKET + "/paimon/");
      }
      try (Stream<Path> objects = Files.walk(stack.runDir().resolve("s3-objects"))) {
        assertThat(objects.filter(Files::isRegularFile).count())
            .as("objects in the store")
            .isPositive();
      }
      stack.connect().delete(sink.name());
    }
  }
}
