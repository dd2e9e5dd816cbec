package io.streamhouse.connect;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import java.util.Collection;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connect entry point for one task. Until the table writers land it only counts what it receives
 * and reports it once per commit interval.
 */
public class StreamhouseSinkTask extends SinkTask {
  private static final Logger LOG = LoggerFactory.getLogger(StreamhouseSinkTask.class);

  private StreamhouseSinkConfig config;
  private String taskName;
  private final ReceivedRecordCounter counter = new ReceivedRecordCounter();

  @Override
  public String version() {
    return Version.get();
  }

  @Override
  public void start(Map<String, String> props) {
    config = new StreamhouseSinkConfig(props);
    taskName = config.connectorName() + "-" + config.taskId();
    LOG.info("Task {} started (plugin version {})", taskName, Version.get());
  }

  @Override
  public void open(Collection<TopicPartition> partitions) {
    LOG.info("Task {} assigned {}", taskName, partitions);
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    counter.add(records);
  }

  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(
      Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    counter.reportIfChanged(taskName, LOG);
    return currentOffsets;
  }

  @Override
  public void close(Collection<TopicPartition> partitions) {
    LOG.info("Task {} revoked {}", taskName, partitions);
  }

  @Override
  public void stop() {
    if (taskName != null) {
      counter.reportIfChanged(taskName, LOG);
      LOG.info("Task {} stopped", taskName);
    }
  }
}
