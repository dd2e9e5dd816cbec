package io.streamhouse.e2e.bench;

import static io.streamhouse.e2e.bench.SinkBenchmarkOptions.JSON_CONVERTER;

import io.streamhouse.e2e.LocalStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The connector configs of {@link SinkBenchmark}'s sinks (ours, the Apache Iceberg sink, the
 * do-nothing sink), and their labels in the tables.
 */
final class SinkConfigs {
  private final SinkBenchmarkOptions options;

  SinkConfigs(SinkBenchmarkOptions options) {
    this.options = options;
  }

  /** Our sink's label in the tables. */
  String ours() {
    return label("streamhouse", "streamhouse");
  }

  /** A sink's label: its name, and the converter when it is not Connect's JsonConverter. */
  String label(String sink, String converterKey) {
    return converterOf(converterKey).equals(JSON_CONVERTER)
        ? sink
        : sink + " + " + converterOf(converterKey).replaceFirst(".*\\.", "");
  }

  private String converterOf(String converterKey) {
    return options.valueConverterFor().contains(converterKey)
        ? options.valueConverter()
        : JSON_CONVERTER;
  }

  Map<String, String> discard(int tasks) {
    Map<String, String> c = base(tasks, converterOf("do-nothing"));
    c.put("connector.class", BenchPlugins.DISCARD_CONNECTOR);
    return c;
  }

  Map<String, String> streamhouse(LocalStack stack, int tasks) throws IOException {
    Path warehouse = warehouse("streamhouse");
    Map<String, String> c = base(tasks, converterOf("streamhouse"));
    c.put("connector.class", "io.streamhouse.connect.StreamhouseSinkConnector");
    c.put("kafka.bootstrap.servers", stack.bootstrapServers());
    c.put("catalogs", "bench");
    c.put("catalog.bench.type", "hadoop");
    c.put("catalog.bench.warehouse", warehouse.toUri().toString());
    c.put("routes", "bench");
    c.put("route.bench.topics", "bench");
    c.put("route.bench.auto-create", "true");
    c.put("commit.interval.ms", options.commitIntervalMs());
    if (!options.kafkaMetadata().isBlank()) {
      c.put("route.bench.kafka-metadata", options.kafkaMetadata());
    }
    return c;
  }

  Map<String, String> apache(int tasks) throws IOException {
    Path warehouse = warehouse("apache");
    Map<String, String> c = base(tasks, converterOf("apache"));
    c.put("connector.class", "org.apache.iceberg.connect.IcebergSinkConnector");
    c.put("iceberg.catalog.type", "hadoop");
    c.put("iceberg.catalog.warehouse", warehouse.toUri().toString());
    c.put("iceberg.tables.auto-create-enabled", "true");
    c.put("iceberg.control.commit.interval-ms", options.commitIntervalMs());
    c.put("iceberg.kafka.auto.offset.reset", "earliest");
    return c;
  }

  /** A fresh warehouse folder of one sink. */
  private Path warehouse(String sink) throws IOException {
    return Files.createDirectories(options.runDir().resolve("warehouse-" + sink));
  }

  private static Map<String, String> base(int tasks, String valueConverter) {
    Map<String, String> c = new HashMap<>();
    c.put("topics", "bench");
    c.put("tasks.max", Integer.toString(tasks));
    c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    c.put("value.converter", valueConverter);
    c.put("value.converter.schemas.enable", "true");
    return c;
  }
}
