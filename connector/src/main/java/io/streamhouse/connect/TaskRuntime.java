package io.streamhouse.connect;

import io.streamhouse.connect.commit.ConnectorThreads;
import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.commit.coordinator.CommitObserver;
import io.streamhouse.connect.commit.coordinator.ConsumedPartitions;
import io.streamhouse.connect.commit.coordinator.Coordinator;
import io.streamhouse.connect.commit.coordinator.TableMaintenance;
import io.streamhouse.connect.commit.task.CompactionRunner;
import io.streamhouse.connect.commit.task.Participant;
import io.streamhouse.connect.commit.task.TaskControlLoop;
import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.commit.wire.ControlEventCodec;
import io.streamhouse.connect.commit.wire.ControlEventRejections;
import io.streamhouse.connect.commit.wire.ControlEventSigner;
import io.streamhouse.connect.commit.wire.KafkaControlChannel;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.errors.BadRecordHandler;
import io.streamhouse.connect.errors.DeadLetterRows;
import io.streamhouse.connect.migration.TakeOverRunner;
import io.streamhouse.connect.monitor.DeadLetterMetrics;
import io.streamhouse.connect.monitor.GaugeRegistry;
import io.streamhouse.connect.monitor.LagMetrics;
import io.streamhouse.connect.monitor.LagMonitor;
import io.streamhouse.connect.monitor.PluginGauges;
import io.streamhouse.connect.monitor.TableMetrics;
import io.streamhouse.connect.monitor.TaskMetrics;
import io.streamhouse.connect.monitor.TransactionMetrics;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.routing.TableRouter;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableFormat;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one task runs besides Connect's calls, wired from its config: the table formats, the
 * control channel and the thread that answers the coordinator, the compaction runner, and on task 0
 * the coordinator and the lag monitor with their threads. It reports their failures to the task and
 * stops them in order.
 */
final class TaskRuntime implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TaskRuntime.class);

  private final StreamhouseSinkConfig config;
  private final String taskName;
  // Set in the order they are made; close() closes what was made when a later step failed.
  private Map<String, TableFormat> formats;
  private PluginGauges gauges;
  private Admin admin;
  private ControlChannel channel;
  private Participant participant;
  private CompactionRunner compactions;
  private TaskMetrics taskMetrics;
  private BadRecordHandler badRecords;
  private DeadLetters deadLetters;
  private TaskControlLoop controlLoop;
  private Thread controlThread;

  // task 0 only
  private Map<String, TableFormat> coordinatorFormats;
  private ControlChannel coordinatorChannel;
  private TakeOverRunner takeOver;
  private TableMaintenance maintenance;
  private Coordinator coordinator;
  private Thread coordinatorThread;
  private LagMonitor lagMonitor;
  private Thread lagMonitorThread;

  TaskRuntime(StreamhouseSinkConfig config, SinkTaskContext context, GaugeRegistry metrics) {
    this.config = config;
    this.taskName = config.connectorName() + "-" + config.taskId();
    try {
      start(context, metrics);
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  private void start(SinkTaskContext context, GaugeRegistry metrics) {
    FaultInjection faults = FaultInjection.parse(config.haltAt(), config.taskId());
    gauges = new PluginGauges(metrics, taskName);
    formats = TableFormats.open(config, config.taskId());
    ControlEventRejections rejections = new ControlEventRejections(taskName);
    ControlEventCodec codec = new ControlEventCodec(config.connectorName(), signer(config));
    badRecords =
        new BadRecordHandler(
            config.connectorName(), config.taskId(), config.toleratesErrors(), context);
    admin = Admin.create(config.kafkaClientProps());
    KafkaControlChannel.ensureTopic(admin, config.controlTopic());
    channel =
        new KafkaControlChannel(
            config.controlTopic(),
            config.connectorName(),
            codec,
            rejections,
            taskName,
            config.kafkaClientProps(),
            admin,
            KafkaControlChannel.HAND_IN_LOOKBACK);
    participant =
        new Participant(
            config.connectorName(),
            config.taskId(),
            formats,
            channel,
            new FileBudget(config.maxOpenFiles(), config.icebergWriteBufferBytes()),
            faults,
            config.commitIntervalMs(),
            config.commitTimeoutMs(),
            config.commitParallelism());
    taskMetrics =
        new TaskMetrics(
            gauges,
            rejections::total,
            participant::rewoundOffsets,
            participant::lastAnswerMs,
            participant::lateAnswers);
    deadLetters = deadLetters(config, participant, gauges);
    compactions = new CompactionRunner(config.connectorName(), config.taskId(), formats, channel);
    controlLoop =
        new TaskControlLoop(
            taskName,
            channel,
            participant,
            compactions,
            Coordinator.standDownMs(config.commitIntervalMs(), config.commitTimeoutMs()),
            Clock.systemUTC());
    controlThread = daemon(controlLoop, "streamhouse-control-" + taskName);
    if (config.taskId() == 0) {
      startCoordination(codec, faults);
    }
  }

  /** The dead-letter table's writer, if {@code errors.deadletter.table} is set; else null. */
  private static DeadLetters deadLetters(
      StreamhouseSinkConfig config, Participant participant, PluginGauges gauges) {
    if (config.deadLetterTable().isEmpty()) {
      return null;
    }
    return new DeadLetters(
        config.connectorName(),
        config.taskId(),
        participant,
        new TableRouter.Destination(
            config.deadLetterTable().get(), config.deadLetterRoute().orElseThrow()),
        new DeadLetterRows(config.connectorName(), config.taskId(), System::currentTimeMillis),
        new DeadLetterMetrics(gauges));
  }

  private static ControlEventSigner signer(StreamhouseSinkConfig config) {
    return new ControlEventSigner(
        config
            .controlSigningKey()
            .orElseThrow(
                () ->
                    new ConnectException(
                        "Connector "
                            + config.connectorName()
                            + " task "
                            + config.taskId()
                            + " has no control-event signing key: the connector hands one to its"
                            + " tasks")));
  }

  private void startCoordination(ControlEventCodec codec, FaultInjection faults) {
    coordinatorFormats = TableFormats.open(config, config.taskId());
    coordinatorChannel =
        new KafkaControlChannel(
            config.controlTopic(),
            config.connectorName(),
            codec,
            ControlEventRejections.silent(),
            taskName + "-coordinator",
            config.kafkaClientProps(),
            admin);
    ConsumedPartitions consumedPartitions =
        new ConsumedPartitions(admin, config.topics(), config.topicsRegex());
    TableMetrics tableMetrics =
        new TableMetrics(gauges, Clock.systemUTC(), config.commitIntervalMs());
    config.deadLetterTable().ifPresent(tableMetrics::deadLetterTable);
    if (config.maintenance().enabled()) {
      maintenance =
          new TableMaintenance(
              config.connectorName(),
              coordinatorFormats,
              config.maintenance(),
              Clock.systemUTC(),
              faults,
              tableMetrics);
      maintenance.start();
    }
    coordinator =
        new Coordinator(
            config.connectorName(),
            coordinatorFormats,
            coordinatorChannel,
            consumedPartitions,
            config.commitIntervalMs(),
            config.commitTimeoutMs(),
            config.commitParallelism(),
            Clock.systemUTC(),
            faults,
            maintenance == null ? tableMetrics : CommitObserver.both(tableMetrics, maintenance),
            // a router of its own: a router is not thread-safe
            tablesOf(consumedPartitions, new TableRouter(config.routes())));
    config.deadLetterTable().ifPresent(coordinator::commitFirst);
    if (config.transactions().enabled()) {
      Coordinator whole = coordinator;
      whole.commitWholeTransactions(
          config.transactions().timeoutMs(), config.transactions().maxPerRound());
      TransactionMetrics.register(gauges, whole::incompleteTransactions);
    }
    // the take-over from the Apache Iceberg sink, if configured, runs before the first round
    takeOver = TakeOverRunner.of(config, coordinatorFormats, gauges, taskName);
    TakeOverRunner startedTakeOver = takeOver;
    Coordinator started = coordinator;
    coordinatorThread =
        daemon(
            () -> {
              startedTakeOver.run();
              started.run();
            },
            "streamhouse-coordinator-" + config.connectorName());
    lagMonitor =
        new LagMonitor(
            config.connectorName(),
            admin,
            config.kafkaClientProps(),
            consumedPartitions,
            new LagMetrics(gauges),
            config.lagCheckIntervalMs(),
            Clock.systemUTC(),
            config.failOnDataLoss());
    lagMonitorThread = daemon(lagMonitor, "streamhouse-lag-monitor-" + config.connectorName());
  }

  private static Thread daemon(Runnable body, String name) {
    return ConnectorThreads.start(body, name);
  }

  /**
   * The tables the consumed topics go to by their routes alone (field-routed tables are not known
   * ahead).
   */
  private static Supplier<List<TableId>> tablesOf(
      ConsumedPartitions partitions, TableRouter router) {
    return () -> {
      Set<TableId> tables = new LinkedHashSet<>();
      partitions.get().stream()
          .map(TopicPartition::topic)
          .distinct()
          .forEach(
              topic ->
                  router
                      .staticDestinations(topic)
                      .ifPresent(list -> list.forEach(d -> tables.add(d.table()))));
      return List.copyOf(tables);
    };
  }

  /** Fails the task when the coordinator, the lag monitor or the control loop failed. */
  void checkHealthy() {
    gauges.retryPending();
    if (coordinator != null && coordinator.failure() != null) {
      throw new ConnectException(
          "Connector "
              + config.connectorName()
              + ": the commit coordinator failed: "
              + coordinator.failure(),
          coordinator.failure());
    }
    if (lagMonitor != null && lagMonitor.failure() != null) {
      throw lagMonitor.failure();
    }
    Throwable controlFailure = controlLoop == null ? null : controlLoop.failure();
    if (controlFailure != null) {
      throw new ConnectException(
          "Connector "
              + config.connectorName()
              + " task "
              + config.taskId()
              + ": the control-topic loop failed, so this task can no longer take part in commits: "
              + controlFailure,
          controlFailure);
    }
  }

  String taskName() {
    return taskName;
  }

  Participant participant() {
    return participant;
  }

  TaskMetrics taskMetrics() {
    return taskMetrics;
  }

  BadRecordHandler badRecords() {
    return badRecords;
  }

  /** The dead-letter table's writer; null without {@code errors.deadletter.table}. */
  DeadLetters deadLetters() {
    return deadLetters;
  }

  /**
   * Stops the threads, then closes what they used, task 0's coordination first; the task's metrics
   * go last, whatever failed before.
   */
  @Override
  public void close() {
    try {
      closeThreadsAndClients();
    } finally {
      if (gauges != null) {
        gauges.close();
      }
    }
  }

  private void closeThreadsAndClients() {
    if (takeOver != null) {
      takeOver.stop(); // before the first round: the coordinator thread runs it
    }
    if (controlLoop != null) {
      controlLoop.stop();
    }
    if (lagMonitor != null) {
      lagMonitor.close();
      join(lagMonitorThread);
      lagMonitor.closeClients();
    }
    if (coordinator != null) {
      coordinator.close();
      join(coordinatorThread);
    }
    if (maintenance != null) {
      maintenance.close();
    }
    if (coordinatorChannel != null) {
      coordinatorChannel.close();
    }
    if (coordinatorFormats != null) {
      coordinatorFormats.values().forEach(TableFormat::close);
    }
    if (channel != null) {
      channel.wakeup();
      join(controlThread);
      channel.close();
    }
    if (compactions != null) {
      compactions.close();
    }
    if (participant != null) {
      participant.close();
    }
    if (formats != null) {
      formats.values().forEach(TableFormat::close);
    }
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
    }
  }

  private static void join(Thread thread) {
    if (thread == null) {
      return;
    }
    try {
      thread.join(Duration.ofSeconds(30).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
