package io.streamhouse.connect;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.monitor.GaugeRegistries;
import io.streamhouse.connect.routing.TableRouter;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connect's entry point for one task, an adapter: {@link TaskRuntime} runs what the task runs
 * besides Connect's calls (task 0 also the coordinator), {@link RecordIntake} answers the calls.
 */
public class StreamhouseSinkTask extends SinkTask {
  private static final Logger LOG = LoggerFactory.getLogger(StreamhouseSinkTask.class);

  private final ReceivedRecordCounter counter = new ReceivedRecordCounter();
  private TaskRuntime runtime;
  private RecordIntake intake;

  @Override
  public String version() {
    return Version.get();
  }

  @Override
  public void start(Map<String, String> props) {
    StreamhouseSinkConfig config = new StreamhouseSinkConfig(props);
    runtime =
        new TaskRuntime(
            config,
            context,
            GaugeRegistries.forTask(context, config.connectorName(), config.taskId()));
    intake =
        new RecordIntake(
            runtime.taskName(),
            runtime.participant(),
            new TableRouter(config.routes()),
            runtime.badRecords(),
            runtime.deadLetters(),
            runtime.taskMetrics(),
            context::offset,
            config.commitHandOverTimeoutMs(),
            !config.transformsRecords(),
            transactionGate(config));
    LOG.info("Started (plugin version {})", Version.get());
  }

  /** The gate of transaction-consistent CDC, null when it is off. */
  private TransactionGate transactionGate(StreamhouseSinkConfig config) {
    if (!config.transactions().enabled()) {
      return null;
    }
    return new TransactionGate(
        config.transactions(),
        runtime.participant().transactions(),
        runtime.participant().transactionTally(),
        context::offset,
        new TransactionGate.Consumer() {
          @Override
          public void pause(Collection<TopicPartition> partitions) {
            context.pause(partitions.toArray(TopicPartition[]::new));
          }

          @Override
          public void resume(Collection<TopicPartition> partitions) {
            context.resume(partitions.toArray(TopicPartition[]::new));
          }

          @Override
          public void pollWithin(long ms) {
            context.timeout(ms);
          }
        });
  }

  @Override
  public void open(Collection<TopicPartition> partitions) {
    LOG.info("Assigned {}", partitions);
    intake.assigned(partitions);
  }

  @Override
  public void put(Collection<SinkRecord> records) {
    runtime.checkHealthy();
    counter.add(records);
    intake.put(records);
  }

  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(
      Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    counter.reportIfChanged(LOG);
    Map<TopicPartition, Long> current = new HashMap<>();
    currentOffsets.forEach((tp, o) -> current.put(tp, o.offset()));
    Map<TopicPartition, OffsetAndMetadata> durable = new HashMap<>();
    intake.durableOffsets(current).forEach((tp, o) -> durable.put(tp, new OffsetAndMetadata(o)));
    return durable;
  }

  @Override
  public void close(Collection<TopicPartition> partitions) {
    LOG.info("Revoked {}", partitions);
    intake.revoked(partitions);
  }

  @Override
  public void stop() {
    if (intake != null) {
      intake.stopping();
    }
    if (runtime != null) {
      runtime.close();
      counter.reportIfChanged(LOG);
      LOG.info("Stopped");
    }
  }
}
