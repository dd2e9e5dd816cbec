package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One connector, config-examples/paimon-cdc.json plus the quickstart's Iceberg catalog: a Debezium
 * envelope topic and a flattened Debezium topic mirror their source table in Paimon, while an
 * orders topic lands in Iceberg, all at once.
 */
@ExtendWith(LocalStackExtension.class)
class PaimonDebeziumE2E {
  private static final int CHANGES = 30_000;
  private static final int KEYS = 3_000;
  private static final int ORDERS = 10_000;

  @Test
  void debeziumTopicsMirrorTheSourceInPaimonWhileOrdersLandInIceberg(LocalStack stack) {
    String envelopes = "customers-cdc";
    String flattened = "customers-flat";
    String orders = "orders-mixed";
    for (String topic : new String[] {envelopes, flattened, orders}) {
      stack.createTopic(topic, 3, Map.of());
    }
    Map<String, String> config =
        new HashMap<>(IcebergSink.config(stack, "mixed", orders, Map.of()).config());
    config.putAll(PaimonSink.config(stack, "mixed", envelopes, Map.of()).config());
    config.putAll(
        Map.of(
            "topics.regex", envelopes + "|" + flattened + "|" + orders,
            "catalogs", "lake,local",
            "routes", "customers,flat,orders",
            "route.orders.catalog", "local",
            "route.customers.catalog", "lake",
            "route.flat.catalog", "lake",
            "route.flat.topics", flattened,
            "route.flat.table", "e2e.${topic}",
            "route.flat.input", "debezium",
            "route.flat.auto-create", "true"));
    config.put("tasks.max", "2");
    ConnectorExample sink = new ConnectorExample("mixed", config);

    try (JsonRecordProducer producer = stack.producer()) { // bad input first: it goes to the DLQ
      producer.sendRaw(
          envelopes,
          0,
          SampleCustomers.key(1),
          JsonText.of(
              ConnectJson.envelope(
                  ConnectJson.struct("Truncate")
                      .field("op", "string", false)
                      .field("after", "string", true),
                  Map.of("op", "t"))));
      producer.sendTombstone(envelopes, 0, null);
      producer.flush();
    }
    SampleCustomers envelopeSource = new SampleCustomers(11, KEYS, 0.15);
    PaimonSink.produce(stack, envelopes, envelopeSource, CHANGES, SampleCustomers::debeziumValue);
    SampleCustomers flatSource = new SampleCustomers(12, KEYS, 0.15);
    PaimonSink.produce(stack, flattened, flatSource, CHANGES, SampleCustomers::flattenedValue);
    Set<Long> orderIds = new HashSet<>();
    try (JsonRecordProducer producer = stack.producer()) {
      for (SampleOrders.Order order : SampleOrders.generate(ORDERS)) {
        long id = (Long) order.payload().get("id");
        producer.sendRaw(
            orders,
            null,
            SampleCustomers.key(id),
            JsonText.of(ConnectJson.envelope(SampleOrders.SCHEMA, order.payload())));
        orderIds.add(id);
      }
      producer.flush();
    }
    stack.connect().putConfig(sink.name(), sink.config());

    try (PaimonTables paimon = PaimonSink.tables(stack);
        IcebergTables iceberg = IcebergSink.tables(stack)) {
      for (String topic : new String[] {envelopes, flattened}) {
        long end =
            PaimonSink.endOffsets(stack, topic).values().stream().mapToLong(Long::longValue).sum();
        await()
            .atMost(Duration.ofMinutes(3))
            .pollInterval(Duration.ofSeconds(1))
            .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, sink.name()))
            .until(
                () ->
                    PaimonSink.watermarkSum(paimon, PaimonSink.tableOf(topic), sink.name()) == end);
      }
      PaimonSink.awaitMirrors(stack, paimon, sink.name(), envelopes, envelopeSource.state());
      PaimonSink.awaitMirrors(stack, paimon, sink.name(), flattened, flatSource.state());
      assertThat(paimon.table(PaimonSink.tableOf(envelopes)).rowType().getFieldNames())
          .as("columns of the envelope table: the row image, no envelope fields")
          .containsExactly("id", "name", "tier", "balance", "version");
      assertThat(paimon.table(PaimonSink.tableOf(flattened)).rowType().getFieldNames())
          .as("columns of the flattened table: no __op / __deleted markers")
          .containsExactly("id", "name", "tier", "balance", "version");
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () ->
                  iceberg.exists(IcebergSink.tableOf(orders))
                      && iceberg
                              .watermarks(IcebergSink.tableOf(orders), sink.name())
                              .values()
                              .stream()
                              .mapToLong(Long::longValue)
                              .sum()
                          == ORDERS);
      IcebergSink.assertExactlyOnce(stack, iceberg, sink.name(), orders, orderIds);
    }
    List<ConsumerRecord<String, String>> dlq = BadInputE2E.readAll(stack, "dlq-mixed", 2);
    assertThat(dlq)
        .hasSize(2)
        .extracting(r -> BadInputE2E.header(r, "__connect.errors.exception.message"))
        .satisfiesExactly(
            m ->
                assertThat(m)
                    .contains(
                        "topic customers-cdc partition 0 offset 0",
                        "table lake:e2e.customers_cdc",
                        "field op",
                        "unknown Debezium op 't'"),
            m ->
                assertThat(m)
                    .contains(
                        "topic customers-cdc partition 0 offset 1",
                        "table lake:e2e.customers_cdc",
                        "without a Kafka key"));
    stack.connect().delete(sink.name());
  }
}
