package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Docker stack's connector (config-examples/iceberg-rest-s3.json): a REST catalog whose
 * warehouse is in an S3-compatible store, written by the plugin through Iceberg's S3FileIO. Here
 * S3Mock stands in for MinIO and a child-JVM REST catalog for the catalog container.
 */
@ExtendWith(LocalStackExtension.class)
class IcebergS3E2E {
  private static final String BUCKET = "warehouse";

  @Test
  void theDockerStackExampleWritesEveryRecordOnceIntoAnS3Warehouse(LocalStack stack)
      throws Exception {
    try (S3CompatibleServer s3 =
            S3CompatibleServer.start(
                stack.runDir(),
                BUCKET,
                E2eSettings.workDir().resolve("kafka-dists"),
                E2eSettings.mavenCmd());
        IcebergRestCatalogServer catalog =
            IcebergRestCatalogServer.startOnS3(
                stack.runDir(),
                E2eSettings.workDir().resolve("kafka-dists"),
                E2eSettings.mavenCmd(),
                s3,
                BUCKET)) {
      String topic = "events.orders";
      stack.createTopic(topic, 3, Map.of());
      ConnectorExample example =
          ConnectorExample.load(
              E2eSettings.repoRoot().resolve("config-examples/iceberg-rest-s3.json"));
      Map<String, String> config = new HashMap<>(example.config());
      // The compose service names and the worker's file config provider, replaced by this run's.
      config.put("kafka.bootstrap.servers", stack.bootstrapServers());
      config.put("catalog.lake.uri", catalog.uri());
      config.put("catalog.lake.s3.endpoint", s3.endpoint());
      config.put("catalog.lake.s3.access-key-id", S3CompatibleServer.ACCESS_KEY_ID);
      config.put("catalog.lake.s3.secret-access-key", S3CompatibleServer.SECRET_ACCESS_KEY);
      config.put("commit.interval.ms", "2000");
      stack.connect().putConfig(example.name(), config);

      Set<Long> produced = new HashSet<>();
      IcebergFaultsE2E.produce(stack, topic, 0, 5_000, produced);

      String table = "raw.events_orders";
      Map<String, String> fileIo =
          Map.of(
              "io-impl",
              "org.apache.iceberg.aws.s3.S3FileIO",
              "s3.endpoint",
              s3.endpoint(),
              "s3.path-style-access",
              "true",
              "client.region",
              S3CompatibleServer.REGION,
              "s3.access-key-id",
              S3CompatibleServer.ACCESS_KEY_ID,
              "s3.secret-access-key",
              S3CompatibleServer.SECRET_ACCESS_KEY);
      try (IcebergTables tables = IcebergTables.rest(catalog.uri(), fileIo)) {
        IcebergRestCatalogE2E.awaitEveryRecordOnce(stack, tables, example.name(), table, produced);
        try (CloseableIterable<FileScanTask> files = tables.table(table).newScan().planFiles()) {
          assertThat(files)
              .extracting(FileScanTask::file)
              .extracting(DataFile::location)
              .isNotEmpty()
              .allSatisfy(
                  location -> assertThat(location).startsWith("s3://" + BUCKET + "/warehouse/"));
        }
      }
      stack.connect().delete(example.name());
    }
  }
}
