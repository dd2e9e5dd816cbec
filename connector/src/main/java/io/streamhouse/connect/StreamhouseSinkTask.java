package io.streamhouse.connect;

import io.streamhouse.connect.commit.CompactionRunner;
import io.streamhouse.connect.commit.ConsumedPartitions;
import io.streamhouse.connect.commit.ControlChannel;
import io.streamhouse.connect.commit.ControlEvent;
import io.streamhouse.connect.commit.ControlEventCodec;
import io.streamhouse.connect.commit.ControlEventRejections;
import io.streamhouse.connect.commit.ControlEventSigner;
import io.streamhouse.connect.commit.Coordinator;
import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.commit.KafkaControlChannel;
import io.streamhouse.connect.commit.Participant;
import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.errors.BadRecordHandler;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.monitor.LagMetrics;
import io.streamhouse.connect.monitor.LagMonitor;
import io.streamhouse.connect.monitor.PluginGauges;
import io.streamhouse.connect.monitor.TableMetrics;
import io.streamhouse.connect.monitor.TaskMetrics;
import io.streamhouse.connect.routing.TableRouter;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableFormat;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connect entry point for one task: routes records to table writers and runs the task side of the
 * commit protocol; task 0 also runs the coordinator.
 */
public class StreamhouseSinkTask extends SinkTask {
  private static final Logger LOG = LoggerFactory.getLogger(StreamhouseSinkTask.class);

  /** The missing plugin metrics of an older worker are reported once per worker, not per task. */
  private static final java.util.concurrent.atomic.AtomicBoolean NO_METRICS_REPORTED =
      new java.util.concurrent.atomic.AtomicBoolean();

  private StreamhouseSinkConfig config;
  private String taskName;
  private final ReceivedRecordCounter counter = new ReceivedRecordCounter();
  private Map<String, TableFormat> formats;
  private Map<String, TableFormat> coordinatorFormats;
  private TableRouter router;
  private ControlChannel channel;
  private ControlChannel coordinatorChannel;
  private Participant participant;
  private CompactionRunner compactions;
  private BadRecordHandler badRecords;
  private Coordinator coordinator;
  private Admin admin;
  private Thread controlThread;
  private Thread coordinatorThread;
  private LagMonitor lagMonitor;
  private TaskMetrics taskMetrics;
  private PluginGauges gauges;
  private Thread lagMonitorThread;
  private volatile boolean running;
  private volatile Throwable controlFailure;
  private final Map<TopicPartition, Long> consumed = new HashMap<>();

  /**
   * Partitions whose first records since their assignment or the last rewind have not arrived yet.
   */
  private final Set<TopicPartition> unseen = new HashSet<>();

  /** Whether the records of a partition go to tables known from its topic (no transforms). */
  private boolean tablesKnownByTopic;

  @Override
  public String version() {
    return Version.get();
  }

  @Override
  public void start(Map<String, String> props) {
    config = new StreamhouseSinkConfig(props);
    tablesKnownByTopic = !config.transformsRecords();
    taskName = config.connectorName() + "-" + config.taskId();
    FaultInjection faults = FaultInjection.parse(config.haltAt());
    formats = TableFormats.open(config, config.taskId());
    router = new TableRouter(config.routes());
    gauges = new PluginGauges(pluginMetrics(), taskName);
    ControlEventRejections rejections = new ControlEventRejections(taskName);
    ControlEventCodec codec =
        new ControlEventCodec(
            config.connectorName(),
            new ControlEventSigner(
                config
                    .controlSigningKey()
                    .orElseThrow(
                        () ->
                            new ConnectException(
                                "Connector "
                                    + config.connectorName()
                                    + " task "
                                    + config.taskId()
                                    + " has no control-event signing key: the connector hands one to its tasks"))));
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
            config.kafkaClientProps());
    participant =
        new Participant(
            config.connectorName(),
            config.taskId(),
            formats,
            channel,
            new FileBudget(config.maxOpenFiles(), config.icebergWriteBufferBytes()),
            faults);
    taskMetrics = new TaskMetrics(gauges, rejections::total, participant::rewoundOffsets);
    compactions =
        new CompactionRunner(config.connectorName(), config.taskId(), formats, participant);
    running = true;
    controlThread = new Thread(this::controlLoop, "streamhouse-control-" + taskName);
    controlThread.setDaemon(true);
    controlThread.start();
    if (config.taskId() == 0) {
      coordinatorFormats = TableFormats.open(config, config.taskId());
      coordinatorChannel =
          new KafkaControlChannel(
              config.controlTopic(),
              config.connectorName(),
              codec,
              ControlEventRejections.silent(),
              taskName + "-coordinator",
              config.kafkaClientProps());
      ConsumedPartitions consumedPartitions =
          new ConsumedPartitions(admin, config.topics(), config.topicsRegex());
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
              new TableMetrics(gauges, Clock.systemUTC(), config.commitIntervalMs()),
              tablesOf(
                  consumedPartitions,
                  new TableRouter(config.routes()))); // a router of its own: not thread-safe
      coordinatorThread =
          new Thread(coordinator, "streamhouse-coordinator-" + config.connectorName());
      coordinatorThread.setDaemon(true);
      coordinatorThread.start();
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
      lagMonitorThread =
          new Thread(lagMonitor, "streamhouse-lag-monitor-" + config.connectorName());
      lagMonitorThread.setDaemon(true);
      lagMonitorThread.start();
    }
    LOG.info("Task {} started (plugin version {})", taskName, Version.get());
  }

  /**
   * The tables the consumed topics go to by their routes alone (field-routed tables are not known
   * ahead).
   */
  private static java.util.function.Supplier<List<io.streamhouse.connect.protocol.TableId>>
      tablesOf(ConsumedPartitions partitions, TableRouter router) {
    return () -> {
      java.util.Set<io.streamhouse.connect.protocol.TableId> tables =
          new java.util.LinkedHashSet<>();
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

  /**
   * Connect's plugin metrics (KIP-877, Kafka 4.1+); null on an older worker, which is said once per
   * worker in the log: the connector runs the same, without its metrics.
   */
  private org.apache.kafka.common.metrics.PluginMetrics pluginMetrics() {
    try {
      return context.pluginMetrics();
    } catch (LinkageError olderWorker) {
      if (NO_METRICS_REPORTED.getAndSet(true)) {
        return null;
      }
      LOG.warn(
          "Task {}: this Connect worker has no plugin metrics (Kafka 4.1+ has them): the lag and table "
              + "metrics are not published; lag checks and data-loss errors still run",
          taskName);
      return null;
    }
  }

  /** Answers the coordinator on its own thread, so that an idle task never delays a commit. */
  private void controlLoop() {
    try {
      while (running) {
        for (ControlEvent event : channel.poll(Duration.ofMillis(200))) {
          if (event instanceof ControlEvent.StartCommit start) {
            participant.onStartCommit(
                start.commitId()); // takes the lock itself, not while closing files
          } else if (event instanceof ControlEvent.CompactRequest request) {
            compactions.submit(request);
          } else if (event instanceof ControlEvent.TableCommitted committed) {
            participant.lock().lock();
            try {
              participant.onTableCommitted(committed);
            } finally {
              participant.lock().unlock();
            }
          }
        }
      }
    } catch (WakeupException stopping) {
      // stop() woke the consumer
    } catch (RuntimeException e) {
      if (running) {
        LOG.error("Task {}: the control loop failed; the task fails at its next put", taskName, e);
        controlFailure = e;
      }
    }
  }

  @Override
  public void open(Collection<TopicPartition> partitions) {
    LOG.info("Task {} assigned {}", taskName, partitions);
    participant.lock().lock();
    try {
      participant.assigned(partitions);
      watchFirstRecords(partitions);
      if (participant.hasWriters()) {
        // Cooperative rebalancing adds partitions to a running task. A Paimon writer must not be
        // older than the watermarks of a partition it writes (its sequence numbers would rank a
        // newer row below rows committed since): start the writers over, after handing in what
        // they wrote, so that the rewind has nothing to read again.
        participant.handOver(config.commitHandOverTimeoutMs());
        rewind();
      }
    } finally {
      participant.lock().unlock();
    }
  }

  @Override
  public void put(Collection<SinkRecord> records) {
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
    counter.add(records);
    participant.lock().lock();
    try {
      // Connect counts every record of this batch as delivered: a rewind in the middle of it must
      // also take the partitions this task sees for the first time back to their first record.
      TopicPartition tp = null;
      Map<TopicPartition, SinkRecord> firstSeen = null;
      Map<TopicPartition, Long> lastSeen = null;
      for (SinkRecord record : records) {
        tp = partitionOf(record, tp);
        consumed.putIfAbsent(tp, record.originalKafkaOffset());
        if (!unseen.isEmpty() && unseen.contains(tp)) {
          if (firstSeen == null) {
            firstSeen = new HashMap<>();
            lastSeen = new HashMap<>();
          }
          firstSeen.putIfAbsent(tp, record);
          lastSeen.put(tp, record.originalKafkaOffset());
        }
      }
      if (participant.resetRequested()) {
        rewind();
        return;
      }
      if (firstSeen != null) {
        skipWhatTheTablesHold(firstSeen, lastSeen);
      }
      tp = null;
      for (SinkRecord record : records) {
        tp = partitionOf(record, tp);
        try {
          for (TableRouter.Destination to : router.route(record)) {
            try {
              if (participant.write(record, tp, to)) {
                taskMetrics.written();
              }
            } catch (RecordConversionException e) {
              taskMetrics.deadLettered();
              badRecords.handle(record, to.table().toString(), e);
              participant.skipped(record, tp, to);
            }
          }
        } catch (RecordConversionException e) {
          taskMetrics.deadLettered();
          badRecords.handle(record, "(no table)", e);
        }
        if (participant.resetRequested()) {
          rewind(); // a table's schema changed: start over, this record included
          return;
        }
        consumed.put(tp, record.originalKafkaOffset() + 1);
      }
    } finally {
      participant.lock().unlock();
    }
  }

  /**
   * The record's original topic-partition; {@code last} again when it is the same (batches come by
   * partition).
   */
  private static TopicPartition partitionOf(SinkRecord record, TopicPartition last) {
    if (last != null
        && last.partition() == record.originalKafkaPartition()
        && last.topic().equals(record.originalTopic())) {
      return last;
    }
    return new TopicPartition(record.originalTopic(), record.originalKafkaPartition());
  }

  private void rewind() {
    long before = participant.rewoundOffsets();
    Map<TopicPartition, Long> to = participant.reset(consumed);
    LOG.warn(
        "Task {} rewinds {} ({} offsets to read again)",
        taskName,
        to,
        participant.rewoundOffsets() - before);
    consumed.putAll(to);
    context.offset(to);
    watchFirstRecords(participant.assignedPartitions());
  }

  private void watchFirstRecords(Collection<TopicPartition> partitions) {
    if (tablesKnownByTopic) {
      unseen.addAll(partitions);
    }
  }

  /**
   * The first records of a partition since its assignment or a rewind start at Connect's committed
   * offset, which lags the tables' watermarks by up to the worker's offset flush interval (after a
   * crash, for example). When every table the partition feeds holds more than this batch brings,
   * the task seeks to the last record they hold instead of reading the rest again only to skip it;
   * reading that one record again moves Connect's position, so that Connect commits it. The records
   * of this batch are skipped one by one, as always. Not with transforms: one could send records of
   * the partition to other tables than its topic's.
   */
  private void skipWhatTheTablesHold(
      Map<TopicPartition, SinkRecord> firstSeen, Map<TopicPartition, Long> lastSeen) {
    firstSeen.forEach(
        (tp, first) -> {
          unseen.remove(tp);
          Optional<List<TableRouter.Destination>> destinations =
              router.staticDestinations(first.topic());
          if (destinations.isEmpty()) {
            return; // a route names tables from record fields: which tables the partition feeds is
            // unknown
          }
          OptionalLong held = participant.commonPosition(tp, destinations.get());
          if (held.isPresent() && held.getAsLong() - 1 > lastSeen.get(tp) + 1) {
            LOG.info(
                "Task {}: {} hold {} below offset {} already; skipping from offset {} to offset {}",
                taskName,
                destinations.get().stream().map(d -> d.table().toString()).distinct().toList(),
                tp,
                held.getAsLong(),
                first.originalKafkaOffset(),
                held.getAsLong() - 1);
            context.offset(tp, held.getAsLong() - 1);
          }
        });
  }

  @Override
  public Map<TopicPartition, OffsetAndMetadata> preCommit(
      Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
    counter.reportIfChanged(taskName, LOG);
    participant.lock().lock();
    try {
      if (participant.resetRequested()) {
        rewind();
      }
      Map<TopicPartition, Long> current = new HashMap<>();
      currentOffsets.forEach((tp, o) -> current.put(tp, o.offset()));
      Map<TopicPartition, OffsetAndMetadata> safe = new HashMap<>();
      participant.safeOffsets(current).forEach((tp, o) -> safe.put(tp, new OffsetAndMetadata(o)));
      return safe;
    } finally {
      participant.lock().unlock();
    }
  }

  @Override
  public void close(Collection<TopicPartition> partitions) {
    LOG.info("Task {} revoked {}", taskName, partitions);
    participant.lock().lock();
    try {
      // Hand in what was written while the task still reports these partitions as its own, so that
      // the round commits as soon as this task answered; the next owners then skip those records.
      participant.handOver(config.commitHandOverTimeoutMs());
      participant.revoked(partitions);
      long before = participant.rewoundOffsets();
      Map<TopicPartition, Long> rewindTo = participant.reset(consumed);
      long rewound = participant.rewoundOffsets() - before;
      if (rewound > 0) {
        LOG.warn(
            "Task {}: {} offsets of uncommitted work are read again after the revocation",
            taskName,
            rewound);
      }
      partitions.forEach(consumed::remove);
      unseen.removeAll(partitions);
      if (!rewindTo.isEmpty()) {
        context.offset(rewindTo);
      }
      watchFirstRecords(participant.assignedPartitions());
    } finally {
      participant.lock().unlock();
    }
  }

  @Override
  public void stop() {
    running = false;
    if (lagMonitor != null) {
      lagMonitor.close();
      join(lagMonitorThread);
      lagMonitor.closeClients();
    }
    if (coordinator != null) {
      coordinator.close();
      join(coordinatorThread);
      coordinatorChannel.close();
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
    if (taskName != null) {
      counter.reportIfChanged(taskName, LOG);
      LOG.info("Task {} stopped", taskName);
    }
  }

  private static void join(Thread thread) {
    try {
      thread.join(Duration.ofSeconds(30).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
