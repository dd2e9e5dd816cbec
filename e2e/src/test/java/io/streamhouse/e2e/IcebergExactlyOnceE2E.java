package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Topics land in Iceberg tables, every record once, with the offsets in the snapshots. */
@ExtendWith(LocalStackExtension.class)
class IcebergExactlyOnceE2E {
  static final int RECORDS = Integer.getInteger("streamhouse.e2e.records", 200_000);

  @Test
  void threeTopicsOfFourPartitionsWithTwoTasks(LocalStack stack) throws Exception {
    List<String> topics = List.of("eo-orders-a", "eo-orders-b", "eo-orders-c");
    for (String topic : topics) {
      stack.createTopic(topic, 4, Map.of());
    }
    ConnectorExample sink = IcebergSink.config(stack, "eo-three-topics", "eo-orders-.*", Map.of("tasks.max", "2"));
    stack.connect().putConfig(sink.name(), sink.config());

    Map<String, Set<Long>> produced = new HashMap<>();
    try (JsonRecordProducer producer = stack.producer()) {
      int perTopic = RECORDS / topics.size();
      for (String topic : topics) {
        Set<Long> ids = new HashSet<>();
        for (SampleOrders.Order order : SampleOrders.generate(perTopic)) {
          producer.sendWithSchema(topic, null, order.key(), SampleOrders.SCHEMA, order.payload());
          ids.add((Long) order.payload().get("id"));
        }
        produced.put(topic, ids);
      }
      producer.flush();
    }

    try (IcebergTables tables = IcebergSink.tables(stack)) {
      await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofSeconds(1))
          .failFast("connector failed", () -> failed(stack, sink.name()))
          .untilAsserted(() -> {
            for (String topic : topics) {
              assertThat(tables.exists(IcebergSink.tableOf(topic))).isTrue();
              assertThat(tables.rows(IcebergSink.tableOf(topic))).hasSize(produced.get(topic).size());
            }
          });
      for (String topic : topics) {
        IcebergSink.assertExactlyOnce(stack, tables, sink.name(), topic, produced.get(topic));
        assertThat(tables.table(IcebergSink.tableOf(topic)).spec().fields()).hasSize(1);
      }
    }
    stack.connect().delete(sink.name());
  }

  static boolean failed(LocalStack stack, String connector) {
    try {
      stack.connect().requireNotFailed(connector);
      return false;
    } catch (IllegalStateException e) {
      System.err.println(e.getMessage());
      return true;
    }
  }
}
