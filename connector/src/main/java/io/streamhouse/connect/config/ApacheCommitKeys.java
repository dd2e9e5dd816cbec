package io.streamhouse.connect.config;

import static io.streamhouse.connect.config.IcebergSinkCompat.*;

/**
 * The Apache sink's commit and control keys as ours, or as warnings and errors. Part of {@link
 * IcebergSinkCompat}.
 */
final class ApacheCommitKeys extends ApacheKeysTranslation {
  ApacheCommitKeys(ApacheKeysTranslation shared) {
    super(shared);
  }

  void commit() {
    if (given.containsKey(COMMIT_INTERVAL_MS)) {
      setFrom(COMMIT_INTERVAL_MS, SinkConfigDef.COMMIT_INTERVAL_MS_CONFIG);
    } else {
      set(
          SinkConfigDef.COMMIT_INTERVAL_MS_CONFIG,
          APACHE_COMMIT_INTERVAL_MS_DEFAULT,
          COMMIT_INTERVAL_MS);
    }
    setFrom(COMMIT_TIMEOUT_MS, SinkConfigDef.COMMIT_TIMEOUT_MS_CONFIG);
    if (given.containsKey(COMMIT_THREADS)) {
      handled.add(COMMIT_THREADS);
      String threads = given.get(COMMIT_THREADS).trim();
      if (threads.matches("\\d+") && Long.parseLong(threads) > 64) {
        warnings.add(COMMIT_THREADS + "=" + threads + ": commit.parallelism is at most 64");
        threads = "64";
      }
      set(SinkConfigDef.COMMIT_PARALLELISM_CONFIG, threads, COMMIT_THREADS);
    }
    // The Apache sink's control topic holds the files of its last, maybe interrupted, commit:
    // the connector reads it once to finish that commit (the hand-over), then never again.
    handled.add(CONTROL_TOPIC);
    String apacheTopic = value(CONTROL_TOPIC, APACHE_CONTROL_TOPIC_DEFAULT);
    set(SinkConfigDef.APACHE_CONTROL_TOPIC_CONFIG, apacheTopic, CONTROL_TOPIC);
    if (given.containsKey(CONTROL_TOPIC)) {
      warnings.add(
          CONTROL_TOPIC
              + " ("
              + apacheTopic
              + ") is the Apache sink's control topic; this connector reads it once to commit "
              + "the files of the Apache sink's last unfinished commit, and sends its own events "
              + "to control.topic ("
              + given.getOrDefault(
                  SinkConfigDef.CONTROL_TOPIC_CONFIG, SinkConfigDef.CONTROL_TOPIC_DEFAULT)
              + ")");
      if (apacheTopic.equals(given.get(SinkConfigDef.CONTROL_TOPIC_CONFIG))) {
        error(
            CONTROL_TOPIC,
            "is also this connector's control.topic: the Apache sink's events there would "
                + "mix with ours; give control.topic another name");
      }
    }
    notNeeded(
        CONTROL_GROUP_ID_PREFIX, "this connector reads its control topic without consumer groups");
    notNeeded(
        COMMIT_MAX_FAILURES,
        "a failed table commit here is retried the next round, never dropped, and counted in "
            + "table-commit-failures-total (alerts StreamhouseTableStale); the connector does not "
            + "stop for it");
    notNeeded(
        TRANSACTIONAL_PREFIX,
        "this connector uses no Kafka transactions, so it needs no transactional-id ACLs");
    notNeeded(KEEP_ALIVE_MS, "commit.parallelism sets the commit threads");
    notNeeded(TRANSACTIONAL_SUFFIX, "it is set by the Apache connector for its tasks");
    if (given.containsKey(CONNECT_GROUP_ID)) {
      handled.add(CONNECT_GROUP_ID);
      String group = given.get(CONNECT_GROUP_ID).trim();
      String connectGroup =
          "connect-" + given.getOrDefault(StreamhouseSinkConfig.CONNECTOR_NAME_CONFIG, "");
      if (!group.equals(connectGroup)) {
        error(
            CONNECT_GROUP_ID,
            "'"
                + group
                + "': this connector's offsets are those of Connect's own consumer group of the "
                + "connector ("
                + connectGroup
                + "), which Connect commits; another group is not supported. Remove the key");
      }
    }
  }
}
