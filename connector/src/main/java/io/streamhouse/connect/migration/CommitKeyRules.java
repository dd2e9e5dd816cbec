package io.streamhouse.connect.migration;

import static io.streamhouse.connect.migration.ApacheKeys.*;

import io.streamhouse.connect.config.MigrationConfigDef;
import io.streamhouse.connect.config.SinkConfigDef;
import java.util.ArrayList;
import java.util.List;

/**
 * The rules of the Apache sink's commit and control keys ({@code iceberg.control.*}, {@code
 * iceberg.coordinator*}, {@code iceberg.connect.group-id}): our commit settings, the control topic
 * the take-over reads, and warnings for the keys of the Apache sink's own commit machinery, which
 * this connector does not need.
 */
final class CommitKeyRules {
  static final List<KeyRule> RULES =
      List.of(
          KeyRule.key(
              COMMIT_INTERVAL_MS,
              in ->
                  List.of(
                      new Effect.Mapped(
                          SinkConfigDef.COMMIT_INTERVAL_MS_CONFIG,
                          in.present() ? in.value().trim() : DEFAULT_COMMIT_INTERVAL_MS,
                          in.key()))),
          KeyRule.mapped(COMMIT_TIMEOUT_MS, SinkConfigDef.COMMIT_TIMEOUT_MS_CONFIG),
          KeyRule.key(COMMIT_THREADS, CommitKeyRules::threads),
          KeyRule.key(CONTROL_TOPIC, CommitKeyRules::controlTopic),
          KeyRule.ignored(
              CONTROL_GROUP_ID_PREFIX,
              "this connector reads its control topic without consumer groups"),
          KeyRule.ignored(
              COMMIT_MAX_FAILURES,
              "a failed table commit here is retried the next round, never dropped, and counted in"
                  + " table-commit-failures-total (alerts StreamhouseTableStale); the connector"
                  + " does not stop for it"),
          KeyRule.ignored(
              TRANSACTIONAL_PREFIX,
              "this connector uses no Kafka transactions, so it needs no transactional-id ACLs"),
          KeyRule.ignored(KEEP_ALIVE_MS, "commit.parallelism sets the commit threads"),
          KeyRule.ignored(TRANSACTIONAL_SUFFIX, "it is set by the Apache connector for its tasks"),
          KeyRule.key(CONNECT_GROUP_ID, CommitKeyRules::connectGroupId));

  /** The most commit threads of ours ({@code commit.parallelism}). */
  private static final int MAX_THREADS = 64;

  private CommitKeyRules() {}

  /** {@code iceberg.control.commit.threads}: {@code commit.parallelism}, at most 64. */
  private static List<Effect> threads(KeyRule.Input in) {
    if (!in.present()) {
      return List.of();
    }
    List<Effect> effects = new ArrayList<>();
    String threads = in.value().trim();
    if (threads.matches("\\d+")
        && (threads.length() > 9 || Integer.parseInt(threads) > MAX_THREADS)) {
      effects.add(
          new Effect.Warning(
              in.key() + "=" + threads + ": commit.parallelism is at most " + MAX_THREADS));
      threads = Integer.toString(MAX_THREADS);
    }
    effects.add(new Effect.Mapped(SinkConfigDef.COMMIT_PARALLELISM_CONFIG, threads, in.key()));
    return effects;
  }

  /**
   * {@code iceberg.control.topic}: the Apache sink's control topic holds the files of its last,
   * maybe interrupted, commit; the connector reads it once to finish that commit (the take-over),
   * then never again. Our own events go to our {@code control.topic}.
   */
  private static List<Effect> controlTopic(KeyRule.Input in) {
    List<Effect> effects = new ArrayList<>();
    String apacheTopic = in.config().value(CONTROL_TOPIC, DEFAULT_CONTROL_TOPIC);
    effects.add(new Effect.Mapped(MigrationConfigDef.CONTROL_TOPIC_CONFIG, apacheTopic, in.key()));
    if (!in.present()) {
      return effects;
    }
    String ours = in.config().raw(SinkConfigDef.CONTROL_TOPIC_CONFIG);
    effects.add(
        new Effect.Warning(
            CONTROL_TOPIC
                + " ("
                + apacheTopic
                + ") is the Apache sink's control topic; this connector reads it once to commit "
                + "the files of the Apache sink's last unfinished commit, and sends its own events "
                + "to control.topic ("
                + (ours != null ? ours : SinkConfigDef.CONTROL_TOPIC_DEFAULT)
                + ")"));
    if (apacheTopic.equals(ours)) {
      effects.add(
          new Effect.Refusal(
              CONTROL_TOPIC,
              "is also this connector's control.topic: the Apache sink's events there would "
                  + "mix with ours; give control.topic another name"));
    }
    return effects;
  }

  /** {@code iceberg.connect.group-id}: only Connect's own group of the connector. */
  private static List<Effect> connectGroupId(KeyRule.Input in) {
    if (!in.present()) {
      return List.of();
    }
    String group = in.value().trim();
    String connectGroup = in.config().connectGroup();
    if (group.equals(connectGroup)) {
      return List.of();
    }
    return List.of(
        new Effect.Refusal(
            CONNECT_GROUP_ID,
            "'"
                + group
                + "': this connector's offsets are those of Connect's own consumer group of the "
                + "connector ("
                + connectGroup
                + "), which Connect commits; another group is not supported. Remove the key"));
  }
}
