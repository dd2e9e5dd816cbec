package io.streamhouse.connect.config;

/**
 * Transaction-consistent CDC as configured ({@link TransactionsConfigDef}); off when {@code
 * transactions.topic} is empty.
 *
 * @param topic Debezium's transaction topic; empty: off
 * @param topicPrefix the prefix of the data collections' topics
 * @param timeoutMs how long a round waits for a transaction to become whole
 * @param maxPerRound the most transactions released per round
 */
public record TransactionSettings(
    String topic, String topicPrefix, long timeoutMs, int maxPerRound) {
  public boolean enabled() {
    return !topic.isEmpty();
  }

  /** The topic of data collection {@code collection} ({@code schema.table}). */
  public String topicOf(String collection) {
    return topicPrefix + "." + collection;
  }

  static TransactionSettings from(StreamhouseSinkConfig config) {
    String topic = config.getString(TransactionsConfigDef.TOPIC_CONFIG).trim();
    String prefix = config.getString(TransactionsConfigDef.TOPIC_PREFIX_CONFIG).trim();
    if (prefix.isEmpty() && topic.lastIndexOf('.') > 0) {
      prefix = topic.substring(0, topic.lastIndexOf('.'));
    }
    return new TransactionSettings(
        topic,
        prefix,
        config.getLong(TransactionsConfigDef.TIMEOUT_MS_CONFIG),
        config.getInt(TransactionsConfigDef.MAX_PER_ROUND_CONFIG));
  }
}
