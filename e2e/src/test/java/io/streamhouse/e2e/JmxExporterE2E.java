package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The shipped JMX-exporter rules (docker/jmx-exporter/streamhouse-connect.yml) on a real worker
 * with the jmx_prometheus_javaagent 1.0.1: every connector metric comes out under its Prometheus
 * name, counters typed as counters, with connector/task/topic/partition/table labels.
 */
class JmxExporterE2E {
  @Test
  void theShippedRulesExportEveryConnectorMetricWithItsType() throws Exception {
    int port = FreePorts.next();
    List<String> flags = JmxExporterAgent.workerFlags(port);
    try (LocalStack stack =
        E2eSettings.stack("JmxExporterE2E", E2eSettings.kafkaVersion())
            .workerJvmFlags(flags)
            .start()) {
      String topic = "exported";
      stack.createTopic(topic, 2, Map.of("retention.ms", "3600000"));
      ConnectorExample sink =
          IcebergSink.config(
              stack, "exp", topic, Map.of("tasks.max", "1", "lag.check-interval.ms", "1000"));
      stack.connect().putConfig(sink.name(), sink.config());
      IcebergFaultsE2E.produce(stack, topic, 0, 100, new HashSet<>());

      HttpClient http = HttpClient.newHttpClient();
      HttpRequest scrape =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build();
      await()
          .atMost(Duration.ofMinutes(1))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () -> {
                String metrics = http.send(scrape, HttpResponse.BodyHandlers.ofString()).body();
                assertThat(metrics)
                    .contains(
                        "streamhouse_table_records_committed_total{connector=\"exp\",table=\"local:e2e.exported\",task=\"0\"} 100.0")
                    .containsPattern(
                        "(?m)^# TYPE streamhouse_table_records_committed(_total)? counter$")
                    .containsPattern("(?m)^# TYPE streamhouse_data_loss_records(_total)? counter$")
                    .containsPattern(
                        "(?m)^# TYPE streamhouse_task_records_written(_total)? counter$")
                    .containsPattern("(?m)^# TYPE streamhouse_lag_records gauge$")
                    .contains(
                        "streamhouse_lag_records{connector=\"exp\",partition=\"0\",task=\"0\",topic=\"exported\"} 0.0")
                    .contains(
                        "streamhouse_data_loss_records_total{connector=\"exp\",partition=\"1\",task=\"0\",topic=\"exported\"} 0.0")
                    .containsPattern(
                        "streamhouse_seconds_to_data_loss\\{connector=\"exp\",partition=\"0\",task=\"0\",topic=\"exported\"} -1.0")
                    .containsPattern(
                        "streamhouse_topic_retention_used_ratio\\{connector=\"exp\",task=\"0\",topic=\"exported\"} ")
                    .containsPattern(
                        "streamhouse_table_last_commit_age_seconds\\{connector=\"exp\",table=\"local:e2e.exported\",task=\"0\"} ")
                    .contains(
                        "streamhouse_task_records_written_total{connector=\"exp\",task=\"0\"} 100.0")
                    .contains("kafka_connect_connector_failed_task_count{connector=\"exp\"} 0.0");
                // Every lag, table and task metric of the reference in docs/monitoring.md comes
                // out, under its Prometheus name.
                List<String> documented =
                    new ArrayList<>(io.streamhouse.connect.monitor.LagMetrics.PARTITION_METRICS);
                documented.addAll(io.streamhouse.connect.monitor.LagMetrics.TOPIC_METRICS);
                documented.addAll(io.streamhouse.connect.monitor.TableMetrics.NAMES);
                documented.addAll(io.streamhouse.connect.monitor.TaskMetrics.NAMES);
                for (String name : documented) {
                  assertThat(metrics)
                      .containsPattern(
                          "(?m)^streamhouse_" + name.replace('-', '_') + "\\{connector=\"exp\"");
                }
              });
      stack.connect().delete(sink.name());
    }
  }
}
