package io.streamhouse.connect;

import io.streamhouse.connect.commit.wire.ControlEventSigner;
import io.streamhouse.connect.config.SinkConfigDef;
import io.streamhouse.connect.config.SinkConfigValidator;
import io.streamhouse.connect.migration.ApacheConfigTranslation;
import io.streamhouse.connect.migration.Translation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Connect entry point: validates the configuration and hands one config per task. */
public class StreamhouseSinkConnector extends SinkConnector {
  private static final Logger LOG = LoggerFactory.getLogger(StreamhouseSinkConnector.class);

  private Map<String, String> props;

  @Override
  public String version() {
    return Version.get();
  }

  @Override
  public void start(Map<String, String> given) {
    String name = given.getOrDefault("name", "unnamed");
    // A config of the Apache Iceberg sink is translated to our keys once, here: the tasks get ours.
    Translation translation = ApacheConfigTranslation.translate(given);
    translation.warnings().forEach(w -> LOG.warn("{}", w));
    SinkConfigValidator.requireValid(translation.config());
    Map<String, String> props = translation.props();
    Map<String, String> withKey = new HashMap<>(props);
    String key = props.get(SinkConfigDef.CONTROL_SIGNING_KEY_CONFIG);
    if (key == null || key.isEmpty()) {
      // The tasks learn it through their configs: events signed under it are theirs. Derived from
      // the configuration rather than random, so that an instance started anew (a worker restart,
      // a move to another worker) hands out the same task configs and Connect does not restart
      // the tasks it just started; the consumers of such a second start used to hold their
      // partitions until their session timed out, stalling the first commit by that long.
      withKey.put(SinkConfigDef.CONTROL_SIGNING_KEY_CONFIG, ControlEventSigner.derivedKey(props));
    }
    this.props = Map.copyOf(withKey);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return StreamhouseSinkTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    List<Map<String, String>> configs = new ArrayList<>(maxTasks);
    for (int i = 0; i < maxTasks; i++) {
      Map<String, String> taskProps = new HashMap<>(props);
      taskProps.put(SinkConfigDef.TASK_ID_CONFIG, Integer.toString(i));
      configs.add(taskProps);
    }
    return configs;
  }

  @Override
  public void stop() {
    // Nothing is held between start and stop: tasks own all resources.
  }

  @Override
  public ConfigDef config() {
    return SinkConfigDef.CONFIG;
  }

  @Override
  public Config validate(Map<String, String> connectorConfigs) {
    // as in start: a config of the Apache Iceberg sink is validated as what it translates to
    return SinkConfigValidator.validate(
        ApacheConfigTranslation.translate(connectorConfigs).config());
  }
}
