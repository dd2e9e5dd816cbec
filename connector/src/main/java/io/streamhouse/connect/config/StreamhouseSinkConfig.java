package io.streamhouse.connect.config;

import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;

/** Typed, validated view of a connector or task configuration. */
public final class StreamhouseSinkConfig extends AbstractConfig {
  /** Connect puts the connector name into every connector and task configuration. */
  static final String CONNECTOR_NAME_CONFIG = "name";

  public StreamhouseSinkConfig(Map<String, String> props) {
    super(SinkConfigDef.CONFIG, props, false);
  }

  public String connectorName() {
    Object name = originals().get(CONNECTOR_NAME_CONFIG);
    return name == null ? "unnamed" : name.toString();
  }

  public int taskId() {
    return getInt(SinkConfigDef.TASK_ID_CONFIG);
  }

  public long commitIntervalMs() {
    return getLong(SinkConfigDef.COMMIT_INTERVAL_MS_CONFIG);
  }

  public long commitTimeoutMs() {
    return getLong(SinkConfigDef.COMMIT_TIMEOUT_MS_CONFIG);
  }

  public String controlTopic() {
    return getString(SinkConfigDef.CONTROL_TOPIC_CONFIG);
  }
}
