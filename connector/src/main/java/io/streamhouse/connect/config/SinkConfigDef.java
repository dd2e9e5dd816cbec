package io.streamhouse.connect.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** Every configuration key of the connector, declared once, with docs, groups and validators. */
public final class SinkConfigDef {
  public static final String COMMIT_GROUP = "Commit";

  public static final String COMMIT_INTERVAL_MS_CONFIG = "commit.interval.ms";
  static final String COMMIT_INTERVAL_MS_DOC =
      "How often the coordinator (in task 0) starts a commit round. Each round commits one snapshot "
          + "per table that received data, carrying the Kafka offsets it covers.";
  static final long COMMIT_INTERVAL_MS_DEFAULT = 60_000L;

  public static final String COMMIT_TIMEOUT_MS_CONFIG = "commit.timeout.ms";
  static final String COMMIT_TIMEOUT_MS_DOC =
      "How long the coordinator waits for every assigned topic-partition to report in a commit "
          + "round before it commits what has arrived (a partial commit).";
  static final long COMMIT_TIMEOUT_MS_DEFAULT = 30_000L;

  public static final String CONTROL_TOPIC_CONFIG = "control.topic";
  static final String CONTROL_TOPIC_DOC =
      "Topic that carries the commit protocol's events between the tasks and the coordinator. It "
          + "holds nothing durable, is created with a short retention if missing, and must not be one "
          + "of the topics the connector sinks.";
  static final String CONTROL_TOPIC_DEFAULT = "streamhouse-control";

  /** Set by the connector in each task's configuration; not a user setting. */
  public static final String TASK_ID_CONFIG = "task.id";

  public static final ConfigDef CONFIG = build();

  private SinkConfigDef() {}

  private static ConfigDef build() {
    int order = 0;
    return new ConfigDef()
        .define(COMMIT_INTERVAL_MS_CONFIG, Type.LONG, COMMIT_INTERVAL_MS_DEFAULT,
            Range.atLeast(100L), Importance.HIGH, COMMIT_INTERVAL_MS_DOC,
            COMMIT_GROUP, ++order, Width.SHORT, "Commit interval (ms)")
        .define(COMMIT_TIMEOUT_MS_CONFIG, Type.LONG, COMMIT_TIMEOUT_MS_DEFAULT,
            Range.atLeast(100L), Importance.MEDIUM, COMMIT_TIMEOUT_MS_DOC,
            COMMIT_GROUP, ++order, Width.SHORT, "Commit timeout (ms)")
        .define(CONTROL_TOPIC_CONFIG, Type.STRING, CONTROL_TOPIC_DEFAULT,
            TopicNameValidator.INSTANCE, Importance.MEDIUM, CONTROL_TOPIC_DOC,
            COMMIT_GROUP, ++order, Width.MEDIUM, "Control topic")
        .defineInternal(TASK_ID_CONFIG, Type.INT, 0, Range.atLeast(0), Importance.LOW,
            "Index of the task, set by the connector; task 0 runs the coordinator.");
  }
}
