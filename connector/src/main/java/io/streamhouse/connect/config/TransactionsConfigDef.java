package io.streamhouse.connect.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The keys of transaction-consistent CDC (docs/atomic-commits.md): Debezium's transaction metadata
 * decides where commits may cut; part of {@link SinkConfigDef}.
 */
public final class TransactionsConfigDef {
  public static final String GROUP = "Transactions";

  public static final String TOPIC_CONFIG = "transactions.topic";
  static final String TOPIC_DOC =
      "Debezium's transaction topic (<topic.prefix>.transaction, from a source connector with "
          + "provide.transaction.metadata=true). When set, no commit makes part of a source "
          + "transaction visible: the records of a transaction are written only once its END event"
          + " arrived, and a round commits only when it holds every event of each transaction it "
          + "touches, in one transaction of an atomic catalog (catalog.<name>.commit.atomic). The "
          + "topic must be one of the connector's topics, routed to an append table: it gets a row "
          + "per END event, committed with that transaction's rows. Empty (the default): off.";

  public static final String TOPIC_PREFIX_CONFIG = "transactions.topic.prefix";
  static final String TOPIC_PREFIX_DOC =
      "The source connector's topic.prefix: the events of data collection <schema>.<table> of an"
          + " END event are on topic <prefix>.<schema>.<table>. Empty (the default): "
          + "transactions.topic up to its last dot.";

  public static final String TIMEOUT_MS_CONFIG = "transactions.timeout.ms";
  static final String TIMEOUT_MS_DOC =
      "How long a round may wait for a transaction to become whole (its END, or events an END "
          + "counts, not arriving). Past it, the round commits what arrived: the transaction is "
          + "counted in transactions-incomplete-committed-total and logged at ERROR with its id and"
          + " the events missing per topic.";

  public static final String MAX_PER_ROUND_CONFIG = "transactions.max.per.round";
  static final String MAX_PER_ROUND_DOC =
      "The most transactions released for writing per commit round: their ids travel in the "
          + "round's control events, which stay under the control topic's message size this way. "
          + "The mode's throughput is at most this many transactions per commit.interval.ms.";

  static final long TIMEOUT_MS_DEFAULT = 300_000L;
  static final int MAX_PER_ROUND_DEFAULT = 5_000;

  /** The largest transactions.max.per.round: 10,000 ids of up to 80 bytes fit in an event. */
  static final int MAX_PER_ROUND_LIMIT = 10_000;

  private TransactionsConfigDef() {}

  /** {@code def} with the transaction keys added. */
  static ConfigDef define(ConfigDef def) {
    return def.define(
            TOPIC_CONFIG,
            Type.STRING,
            "",
            Importance.MEDIUM,
            TOPIC_DOC,
            GROUP,
            1,
            Width.MEDIUM,
            "Transaction topic")
        .define(
            TOPIC_PREFIX_CONFIG,
            Type.STRING,
            "",
            Importance.LOW,
            TOPIC_PREFIX_DOC,
            GROUP,
            2,
            Width.MEDIUM,
            "Source topic prefix")
        .define(
            TIMEOUT_MS_CONFIG,
            Type.LONG,
            TIMEOUT_MS_DEFAULT,
            Range.atLeast(1_000),
            Importance.LOW,
            TIMEOUT_MS_DOC,
            GROUP,
            3,
            Width.SHORT,
            "Transaction timeout")
        .define(
            MAX_PER_ROUND_CONFIG,
            Type.INT,
            MAX_PER_ROUND_DEFAULT,
            Range.between(1, MAX_PER_ROUND_LIMIT),
            Importance.LOW,
            MAX_PER_ROUND_DOC,
            GROUP,
            4,
            Width.SHORT,
            "Transactions per round");
  }
}
