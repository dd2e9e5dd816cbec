package io.streamhouse.connect.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.protocol.TableId;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.Test;

/**
 * The connector's own JMX registry of a worker without plugin metrics: the MBeans it publishes are
 * those a Kafka 4.1+ worker publishes for the same gauges (name, key order, attributes, values),
 * and a stopped task leaves none behind.
 */
class JmxGaugeRegistryTest {
  private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

  @Test
  void theFallbackPublishesTheMBeansOfAKafka4Worker() throws Exception {
    String connector = "same-names";
    // A 4.1+ worker: Connect's registry (JmxReporter in domain kafka.connect) and a task's plugin
    // metrics tagged connector, then task, as ConnectMetrics.taskPluginMetrics makes them.
    Metrics connect =
        new Metrics(
            new MetricConfig(),
            List.<MetricsReporter>of(new JmxReporter()),
            Time.SYSTEM,
            new KafkaMetricsContext("kafka.connect"));
    LinkedHashMap<String, String> taskTags = new LinkedHashMap<>();
    taskTags.put("connector", connector);
    taskTags.put("task", "0");
    PluginMetricsImpl plugin = new PluginMetricsImpl(connect, taskTags);
    publishEveryKind(new PluginGauges(new WorkerGaugeRegistry(plugin), "t"));
    Map<String, Map<String, Object>> kafka4 = mbeans(connector);
    plugin.close();
    connect.close();
    assertThat(mbeans(connector)).isEmpty();

    Metrics own = JmxGaugeRegistry.newWorkerRegistry();
    PluginGauges gauges = new PluginGauges(new JmxGaugeRegistry(own, connector, 0), "t");
    publishEveryKind(gauges);
    Map<String, Map<String, Object>> fallback = mbeans(connector);

    assertThat(kafka4)
        .containsKeys(
            "type=plugins,connector=same-names,task=0",
            "type=plugins,connector=same-names,task=0,topic=orders",
            "type=plugins,connector=same-names,task=0,topic=orders,partition=1",
            "type=plugins,connector=same-names,task=0,table=\"cat:db.t\"",
            "type=plugins,connector=same-names,task=0,table=\"cat:db.t\",stage=convert");
    assertThat(kafka4.get("type=plugins,connector=same-names,task=0,topic=orders,partition=1"))
        .containsKeys(LagMetrics.PARTITION_METRICS.toArray(String[]::new))
        .containsEntry("lag-records", 30.0);
    assertThat(fallback).isEqualTo(kafka4);
    assertThat(JMX.isRegistered(new ObjectName("kafka.connect:type=kafka-metrics-count")))
        .as("the count of the registry's own metrics belongs to the worker's registry")
        .isFalse();

    gauges.close();
    assertThat(mbeans(connector)).isEmpty();
    own.close();
  }

  @Test
  void aRestartedTaskPublishesOnceItsPreviousInstanceHasStoppedAndNothingStaysBehind()
      throws Exception {
    String connector = "restarted";
    Metrics own = JmxGaugeRegistry.newWorkerRegistry();
    PluginGauges stale = new PluginGauges(new JmxGaugeRegistry(own, connector, 0), "t");
    TaskMetrics staleTask = taskMetrics(stale);
    staleTask.written();

    PluginGauges live = new PluginGauges(new JmxGaugeRegistry(own, connector, 0), "t");
    TaskMetrics liveTask = taskMetrics(live);
    liveTask.written();
    liveTask.written();
    assertThat(live.pendingCount()).isEqualTo(TaskMetrics.NAMES.size());
    String task = "type=plugins,connector=restarted,task=0";
    assertThat(mbeans(connector).get(task)).containsEntry("task-records-written-total", 1L);

    stale.close(); // the old instance's stop() at last
    live.retryPending();
    assertThat(live.pendingCount()).isZero();
    assertThat(mbeans(connector).get(task))
        .containsOnlyKeys(TaskMetrics.NAMES)
        .containsEntry("task-records-written-total", 2L);

    live.close();
    assertThat(mbeans(connector)).isEmpty();
    // A thread of the stopped task that registers late leaves nothing either.
    new LagMetrics(live).update(new TopicPartition("late", 0), new PartitionLag(1, 1, 0, 0, 1, 0));
    assertThat(mbeans(connector)).isEmpty();
    own.close();
  }

  @Test
  void aWorkerWithoutPluginMetricsGetsTheConnectorsOwnRegistry() throws Exception {
    assertThat(GaugeRegistries.forTask(context(new NoSuchMethodError("pluginMetrics")), "old", 1))
        .isInstanceOf(JmxGaugeRegistry.class);
    assertThat(
            GaugeRegistries.forTask(
                context(new NoClassDefFoundError("org/apache/kafka/common/metrics/PluginMetrics")),
                "old",
                1))
        .isInstanceOf(JmxGaugeRegistry.class);
    PluginMetricsImpl plugin = new PluginMetricsImpl(new Metrics(), Map.of("connector", "new"));
    assertThat(GaugeRegistries.forTask(context(plugin), "new", 0))
        .isInstanceOf(WorkerGaugeRegistry.class);

    // The worker-wide registry publishes over JMX and forgets a stopped task.
    PluginGauges gauges =
        new PluginGauges(
            GaugeRegistries.forTask(context(new NoSuchMethodError("pluginMetrics")), "old", 1),
            "t");
    gauges.register("task-x", "x", new LinkedHashMap<>(), (Gauge<Long>) (config, now) -> 7L);
    assertThat(mbeans("old"))
        .containsExactly(Map.entry("type=plugins,connector=old,task=1", Map.of("task-x", 7L)));
    gauges.close();
    assertThat(mbeans("old")).isEmpty();
  }

  /** One gauge of every shape of tags the connector uses: task, topic, partition, table, stage. */
  private static void publishEveryKind(PluginGauges gauges) {
    LagMetrics lag = new LagMetrics(gauges);
    lag.update(new TopicPartition("orders", 0), new PartitionLag(10, 5, 0.25, 0, 15, 0));
    lag.update(new TopicPartition("orders", 1), new PartitionLag(30, 8, 0.4, 0.6, 12, 0));
    lag.lost(new TopicPartition("orders", 1), 7);
    TableMetrics tables = new TableMetrics(gauges, Clock.systemUTC(), 60_000);
    TableId table = new TableId("cat", List.of("db"), "t");
    tables.deadLetterTable(table);
    tables.failed(table);
    taskMetrics(gauges).written();
    new DeadLetterMetrics(gauges).written(table.toString(), "convert");
  }

  private static TaskMetrics taskMetrics(PluginGauges gauges) {
    return new TaskMetrics(gauges, () -> 1, () -> 2, () -> 3, () -> 4);
  }

  /**
   * The MBeans of {@code connector} under {@code kafka.connect:type=plugins}, by their key property
   * list as written (the order JMX-exporter rules match), with their attributes' values.
   */
  private static Map<String, Map<String, Object>> mbeans(String connector) throws Exception {
    Map<String, Map<String, Object>> found = new TreeMap<>();
    for (ObjectName name :
        JMX.queryNames(
            new ObjectName("kafka.connect:type=plugins,connector=" + connector + ",*"), null)) {
      Map<String, Object> attributes = new TreeMap<>();
      for (MBeanAttributeInfo attribute : JMX.getMBeanInfo(name).getAttributes()) {
        attributes.put(attribute.getName(), JMX.getAttribute(name, attribute.getName()));
      }
      found.put(name.getKeyPropertyListString(), attributes);
    }
    return found;
  }

  /** A task context whose {@code pluginMetrics()} answers {@code answer} or throws it. */
  private static SinkTaskContext context(Object answer) {
    return (SinkTaskContext)
        Proxy.newProxyInstance(
            SinkTaskContext.class.getClassLoader(),
            new Class<?>[] {SinkTaskContext.class},
            (proxy, method, args) -> {
              if (!method.getName().equals("pluginMetrics")) {
                throw new UnsupportedOperationException(method.getName());
              }
              if (answer instanceof Error e) {
                throw e;
              }
              return (PluginMetrics) answer;
            });
  }
}
