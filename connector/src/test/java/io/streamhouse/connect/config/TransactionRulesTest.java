package io.streamhouse.connect.config;

import static io.streamhouse.connect.config.SinkConfigValidatorTest.config;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.StreamhouseSinkConnector;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

class TransactionRulesTest {
  private static final String KEY = TransactionsConfigDef.TOPIC_CONFIG;

  /** One atomic Nessie catalog, the transaction topic among the topics. */
  private static Map<String, String> atomic(String... pairs) {
    Map<String, String> props =
        config(
            "catalog.local.type",
            "rest",
            "catalog.local.uri",
            "http://nessie:19120/iceberg",
            "catalog.local.warehouse",
            "warehouse",
            "catalog.local.commit.atomic",
            "true",
            "topics",
            "bank.public.a,bank.transaction",
            "routes",
            "a,tx",
            "route.a.topics",
            "bank.public.a",
            "route.tx.topics",
            "bank.transaction",
            "route.tx.table",
            "bank.source_transactions",
            KEY,
            "bank.transaction");
    for (int i = 0; i < pairs.length; i += 2) {
      props.put(pairs[i], pairs[i + 1]);
    }
    return props;
  }

  @Test
  void anAtomicCatalogThatReadsTheTransactionTopicIsValidAndTakesThePrefixFromIt() {
    Config result = new StreamhouseSinkConnector().validate(atomic());
    assertThat(result.configValues()).allSatisfy(v -> assertThat(v.errorMessages()).isEmpty());
    TransactionSettings settings = new StreamhouseSinkConfig(atomic()).transactions();
    assertThat(settings.enabled()).isTrue();
    assertThat(settings.topicOf("public.accounts")).isEqualTo("bank.public.accounts");
    assertThat(new StreamhouseSinkConfig(config()).transactions().enabled()).isFalse();
  }

  @Test
  void aCatalogThatDoesNotCommitAtomicallyIsRefused() {
    assertThat(errorsOf(atomic("catalog.local.commit.atomic", "false")))
        .singleElement()
        .asString()
        .contains("catalog.local.commit.atomic=true");
  }

  @Test
  void aTransactionTopicTheConnectorDoesNotReadIsRefused() {
    assertThat(errorsOf(atomic("topics", "bank.public.a")))
        .anySatisfy(e -> assertThat(e).contains("must be one of the connector's topics"));
  }

  @Test
  void aTransactionTopicRoutedToAPrimaryKeyTableIsRefused() {
    assertThat(errorsOf(atomic("route.tx.primary-key", "id")))
        .anySatisfy(e -> assertThat(e).contains("route tx takes the transaction topic"));
    assertThat(errorsOf(atomic("route.tx.input", "debezium")))
        .anySatisfy(e -> assertThat(e).contains("to an append table"));
  }

  @Test
  void twoCatalogsAreRefused() {
    assertThat(
            errorsOf(
                atomic(
                    "catalogs",
                    "local,other",
                    "catalog.other.uri",
                    "jdbc:sqlite:/tmp/o.db",
                    "catalog.other.warehouse",
                    "/tmp/o")))
        .anySatisfy(e -> assertThat(e).contains("exactly one catalog"));
  }

  private static List<String> errorsOf(Map<String, String> props) {
    return new StreamhouseSinkConnector()
        .validate(props).configValues().stream()
            .filter(v -> v.name().equals(KEY))
            .findFirst()
            .map(ConfigValue::errorMessages)
            .orElseThrow();
  }
}
