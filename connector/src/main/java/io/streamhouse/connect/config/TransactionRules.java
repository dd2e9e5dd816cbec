package io.streamhouse.connect.config;

import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What transaction-consistent CDC needs of the rest of the config: one catalog, committing rounds
 * atomically (a round of two catalogs would be two transactions), and the transaction topic among
 * the topics the connector reads, where a route sends its END events to the transactions table.
 */
final class TransactionRules {
  private TransactionRules() {}

  static void check(
      List<String> catalogs, Map<String, String> props, BiConsumer<String, String> error) {
    String topic = props.get(TransactionsConfigDef.TOPIC_CONFIG);
    if (topic == null || topic.isBlank()) {
      return;
    }
    String key = TransactionsConfigDef.TOPIC_CONFIG;
    topic = topic.trim();
    if (catalogs.size() != 1) {
      error.accept(
          key,
          "transaction-consistent commits need exactly one catalog (the connector has "
              + catalogs
              + "): the tables of two catalogs cannot change in one transaction");
    } else {
      String atomicKey =
          CatalogConfigDef.PREFIX + catalogs.get(0) + "." + CatalogConfigDef.COMMIT_ATOMIC;
      if (!"true".equalsIgnoreCase(String.valueOf(props.get(atomicKey)).trim())) {
        error.accept(
            key,
            "transaction-consistent commits need "
                + atomicKey
                + "=true: each round's tables must change in one transaction");
      }
    }
    if (!readsTopic(topic, props)) {
      error.accept(
          key,
          "the transaction topic '"
              + topic
              + "' must be one of the connector's topics (topics or topics.regex), routed to the "
              + "table that takes its END events");
    }
    for (String route : SinkConfigDef.names(props.get(SinkConfigDef.ROUTES_CONFIG))) {
      String p = RouteConfigDef.PREFIX + route + ".";
      boolean takesIt =
          SinkConfigDef.names(props.get(p + RouteConfigDef.TOPICS)).contains(topic)
              || matches(props.get(p + RouteConfigDef.TOPICS_REGEX), topic);
      boolean plain =
          blank(props.get(p + RouteConfigDef.PRIMARY_KEY))
              && !"debezium"
                  .equalsIgnoreCase(String.valueOf(props.get(p + RouteConfigDef.INPUT)).trim());
      if (takesIt && !plain) {
        error.accept(
            key,
            "route "
                + route
                + " takes the transaction topic '"
                + topic
                + "': it must write its END events as they are, to an append table (no "
                + p
                + RouteConfigDef.PRIMARY_KEY
                + ", no "
                + p
                + RouteConfigDef.INPUT
                + ")");
      }
    }
    if (topic.lastIndexOf('.') <= 0
        && blank(props.get(TransactionsConfigDef.TOPIC_PREFIX_CONFIG))) {
      error.accept(
          TransactionsConfigDef.TOPIC_PREFIX_CONFIG,
          "the transaction topic '"
              + topic
              + "' has no <prefix>. to take the source's topic prefix from: set it");
    }
  }

  private static boolean readsTopic(String topic, Map<String, String> props) {
    String topics = props.get("topics");
    if (!blank(topics) && SinkConfigDef.names(topics).contains(topic)) {
      return true;
    }
    return matches(props.get("topics.regex"), topic);
  }

  private static boolean matches(String regex, String topic) {
    if (blank(regex)) {
      return false;
    }
    try {
      return Pattern.compile(regex.trim()).matcher(topic).matches();
    } catch (PatternSyntaxException e) {
      return false; // reported on its own key
    }
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
