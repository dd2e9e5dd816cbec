package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamhouse.connect.table.iceberg.KeyedTableCheck;
import io.streamhouse.connect.testing.OutsideWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Keyed Iceberg tables that another engine writes while the connector streams into them
 * (docs/iceberg-primary-key-tables.md, "Outside writers"): two topics of upserts, one into a format
 * v2 table and one into a v3 table, 2 tasks; while they stream, an outside writer (Iceberg's own
 * Java API, {@link OutsideWriter}) takes turns at merge-on-read updates and deletes of live keys,
 * {@code rewrite_data_files} of the whole table, copy-on-write updates and inserts of a second row
 * of live keys, one commit every 1.5 s. Every commit of the connector to both tables leaves one
 * live row per key ({@link KeyedTableCheck}), the tables go on committing, and once the source
 * sends the last state of every key the outside writer touched (a later change replaces whatever
 * row the table holds), both tables equal the source. Prints the outside commits, the connector's
 * commits and the longest stretch without one, and the batches rejected.
 */
@ExtendWith(LocalStackExtension.class)
class IcebergOutsideWritersE2E {
  private static final int CHANGES = Integer.getInteger("streamhouse.e2e.outside-changes", 40_000);
  private static final int KEYS = Integer.getInteger("streamhouse.e2e.outside-keys", 5_000);
  private static final long INTERVAL_MS = 2000;
  private static final int SLICES = 8;

  /** The outside commits that went through. */
  private static long committed(List<String> log) {
    synchronized (log) {
      return log.size();
    }
  }

  @Test
  void tablesAnotherEngineWritesWhileRecordsStreamEqualTheSource(LocalStack stack)
      throws Exception {
    String v2 = "outside-v2";
    String v3 = "outside-v3";
    stack.createTopic(v2, 4, Map.of());
    stack.createTopic(v3, 4, Map.of());
    Map<String, String> overrides = new HashMap<>();
    overrides.put("route.orders.primary-key", "id");
    overrides.put("routes", "orders,v3");
    overrides.put("route.v3.topics", v3);
    overrides.put("route.v3.table", "e2e.${topic}");
    overrides.put("route.v3.auto-create", "true");
    overrides.put("route.v3.primary-key", "id");
    overrides.put("route.v3.format-version", "3");
    ConnectorExample sink =
        IcebergUpsertE2E.keyedConfig(stack, "outside", v2 + "|" + v3, overrides);
    Map<String, String> config = new HashMap<>(sink.config());
    config.put("route.orders.topics.regex", v2);
    config.put("commit.interval.ms", Long.toString(INTERVAL_MS));
    sink = new ConnectorExample(sink.name(), config);

    Map<String, SampleCustomers> sources =
        Map.of(v2, new SampleCustomers(3, KEYS, 0.2), v3, new SampleCustomers(5, KEYS, 0.2));
    for (String topic : List.of(v2, v3)) {
      PaimonSink.produce(
          stack, topic, sources.get(topic), CHANGES / 2, SampleCustomers::upsertValue);
    }
    stack.connect().putConfig(sink.name(), sink.config());
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      for (String topic : List.of(v2, v3)) {
        IcebergUpsertE2E.awaitAllCommitted(stack, tables, sink.name(), topic);
      }
      long loopStart = System.currentTimeMillis();
      Map<String, Set<Long>> touched = new ConcurrentHashMap<>();
      List<String> outsideLog = new ArrayList<>();
      int[] conflicts = {0};
      ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
      Random random = new Random(17);
      int[] step = {0};
      loop.scheduleWithFixedDelay(
          () ->
              outsideStep(
                  tables, List.of(v2, v3), step[0]++, random, touched, outsideLog, conflicts),
          0,
          1500,
          TimeUnit.MILLISECONDS);
      try {
        // The second half in slices, each produced once the outside writer committed twice more:
        // the records stream while it writes, whatever the machine's speed.
        for (int slice = 0; slice < SLICES; slice++) {
          for (String topic : List.of(v2, v3)) {
            PaimonSink.produce(
                stack,
                topic,
                sources.get(topic),
                CHANGES / 2 / SLICES,
                SampleCustomers::upsertValue);
          }
          int target = 2 * (slice + 1);
          String name = sink.name();
          await()
              .atMost(Duration.ofMinutes(5))
              .pollInterval(Duration.ofMillis(200))
              .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, name))
              .until(() -> committed(outsideLog) >= target);
        }
        for (String topic : List.of(v2, v3)) {
          IcebergUpsertE2E.awaitAllCommitted(stack, tables, sink.name(), topic);
        }
      } finally {
        loop.shutdown();
        assertThat(loop.awaitTermination(2, TimeUnit.MINUTES)).isTrue();
      }
      long loopEnd = System.currentTimeMillis();
      // The last state of every key the outside writer touched: the connector's change comes last.
      try (JsonRecordProducer producer = stack.producer()) {
        for (String topic : List.of(v2, v3)) {
          Map<Long, Map<String, Object>> state = sources.get(topic).state();
          for (long id : touched.getOrDefault(topic, Set.of())) {
            String key = SampleCustomers.key(id);
            if (state.containsKey(id)) {
              producer.sendRaw(
                  topic,
                  null,
                  key,
                  JsonText.of(ConnectJson.envelope(SampleCustomers.ROW, state.get(id))));
            } else {
              producer.sendTombstone(topic, null, key);
            }
          }
        }
        producer.flush();
      }
      for (String topic : List.of(v2, v3)) {
        IcebergUpsertE2E.awaitAllCommittedAndCheck(
            stack, tables, sink.name(), topic, sources.get(topic).state());
        Table table = tables.table(IcebergSink.tableOf(topic));
        report(topic, table, sink.name(), loopStart, loopEnd, touched);
        // The outside writer's inserts of a second row make snapshots that do not hold one row per
        // key, until the connector's next commit: its commits do.
        IcebergKeyedPartitionsE2E.assertEveryCommitHasOneRowPerKey(table, sink.name());
      }
      String log = Files.readString(stack.worker().logFile());
      System.out.printf(
          "IcebergOutsideWritersE2E: %d outside commits, %d more lost to a concurrent commit; %d"
              + " keyed batches rejected, %d catch-ups past outside snapshots (worker log)%n",
          outsideLog.size(),
          conflicts[0],
          log.lines().filter(l -> l.contains("rejected keyed batch")).count(),
          log.lines().filter(l -> l.contains("snapshot(s) of other writers")).count());
      assertThat(committed(outsideLog)).as("outside commits").isGreaterThanOrEqualTo(2L * SLICES);
    } finally {
      stack.connect().delete(sink.name());
    }
  }

  /**
   * One commit of the outside writer to one of the tables, in turns: a merge-on-read update of 30
   * live keys, a merge-on-read delete of 10, a rewrite of every data file, a copy-on-write update
   * of 10. A commit that loses to a concurrent one is counted and left.
   */
  private static void outsideStep(
      IcebergTables tables,
      List<String> topics,
      int step,
      Random random,
      Map<String, Set<Long>> touched,
      List<String> log,
      int[] conflicts) {
    String topic = topics.get(step % topics.size());
    try {
      Table table = tables.table(IcebergSink.tableOf(topic));
      OutsideWriter outside = new OutsideWriter(table);
      List<Long> live = outside.liveRows().stream().map(OutsideWriter.Row::id).toList();
      Set<Long> keys = new TreeSet<>();
      int kind = (step / topics.size()) % 5;
      int wanted = kind == 0 ? 30 : 10;
      while (keys.size() < Math.min(wanted, live.size())) {
        keys.add(live.get(random.nextInt(live.size())));
      }
      Map<Long, String> names = new HashMap<>();
      keys.forEach(id -> names.put(id, "outside-" + step + "-" + id));
      String what;
      switch (kind) {
        case 0 -> what = "merge-on-read update of " + outside.update(names).size();
        case 1 -> {
          outside.delete(keys);
          what = "merge-on-read delete of " + keys.size();
        }
        case 2 -> {
          outside.rewriteAll();
          what = "rewrite of every data file";
          keys.clear();
        }
        case 3 -> {
          outside.copyOnWrite(names);
          what = "copy-on-write update of " + keys.size();
        }
        default -> what = "insert of a second row of " + outside.insertAgain(names).size();
      }
      touched.computeIfAbsent(topic, t -> ConcurrentHashMap.newKeySet()).addAll(keys);
      synchronized (log) {
        log.add(topic + ": " + what);
      }
    } catch (RuntimeException e) {
      synchronized (log) {
        conflicts[0]++;
      }
    }
  }

  /** Prints the outside and connector commits of one table while the outside writer ran. */
  private static void report(
      String topic,
      Table table,
      String connector,
      long from,
      long to,
      Map<String, Set<Long>> touched) {
    String watermarks = "streamhouse." + connector + ".watermarks";
    List<Long> ours = new ArrayList<>();
    int outside = 0;
    for (Snapshot s : table.snapshots()) {
      if (s.timestampMillis() < from || s.timestampMillis() > to) {
        continue;
      }
      if (s.summary() != null && s.summary().containsKey(watermarks)) {
        ours.add(s.timestampMillis());
      } else if (s.summary() == null
          || !s.summary().containsKey("streamhouse." + connector + ".rewrite-map")) {
        outside++;
      }
    }
    ours.sort(Long::compare);
    long gap = 0;
    for (int i = 1; i < ours.size(); i++) {
      gap = Math.max(gap, ours.get(i) - ours.get(i - 1));
    }
    System.out.printf(
        "IcebergOutsideWritersE2E %s: %d outside snapshots and %d connector commits in %d ms; the"
            + " longest stretch between two connector commits %d ms (%.1f commit intervals); %d"
            + " keys touched by the outside writer%n",
        table.name(),
        outside,
        ours.size(),
        to - from,
        gap,
        gap / (double) INTERVAL_MS,
        touched.getOrDefault(topic, Set.of()).size());
  }
}
