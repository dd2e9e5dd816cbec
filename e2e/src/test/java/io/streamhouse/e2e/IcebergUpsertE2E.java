package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Keyed Iceberg tables (a route with a primary key, or with {@code input}): a topic of upserts and
 * tombstones, and a topic of Debezium envelopes, land in Iceberg tables that equal the source
 * model, through a kill -9 of the worker and through a rebalance. Superseded and deleted rows go by
 * position delete files only: no snapshot has an equality delete file.
 */
@ExtendWith(LocalStackExtension.class)
class IcebergUpsertE2E {
  private static final int CHANGES = 1_000_000;
  private static final int KEYS = 100_000;

  /**
   * The Debezium stream: 200,000 changes over 20,000 keys in CI (the upsert stream carries the full
   * size); {@code -Dstreamhouse.e2e.cdc-changes=1000000 -Dstreamhouse.e2e.cdc-keys=100000} runs it
   * at the size of the upsert stream.
   */
  private static final int CDC_CHANGES = Integer.getInteger("streamhouse.e2e.cdc-changes", 200_000);

  private static final int CDC_KEYS = Integer.getInteger("streamhouse.e2e.cdc-keys", 20_000);

  /** Keyed Iceberg work on a shared 2-core machine: generous, nothing here asserts a timing. */
  private static final Duration ALL_COMMITTED = Duration.ofMinutes(25);

  @Test
  void upsertsAndTombstonesThroughAKilledWorkerEqualTheModel(LocalStack stack) {
    String topic = "iceberg-upserts";
    stack.createTopic(topic, 4, Map.of());
    ConnectorExample sink =
        keyedConfig(stack, "iceberg-upserts", topic, Map.of("route.orders.primary-key", "id"));
    String table = IcebergSink.tableOf(topic);
    // Keyed by the customer id (a struct key, hashed by the default partitioner): every change of
    // a key lands in one partition.
    SampleCustomers source = new SampleCustomers(7, KEYS, 0.2);
    PaimonSink.produce(stack, topic, source, CHANGES / 2, SampleCustomers::upsertValue);
    stack.connect().putConfig(sink.name(), sink.config());
    long firstHalf = endSum(stack, topic);
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      // A quarter of the first half is committed (the second half is not even produced yet), so
      // the restarted writers read indexes of many keys, and deletes point into older files:
      // kill -9, most likely with uncommitted batches in the tasks.
      await()
          .atMost(ALL_COMMITTED)
          .pollInterval(Duration.ofMillis(500))
          .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, sink.name()))
          .until(() -> watermarkSum(tables, table, sink.name()) >= firstHalf / 4);
      System.out.println(
          "IcebergUpsertE2E: kill -9 of the worker with "
              + watermarkSum(tables, table, sink.name())
              + " of "
              + firstHalf
              + " offsets committed");
      stack.worker().process().signal("KILL");
      // The second half while the worker is down: then it starts again, its tasks read their key
      // indexes again, and what was read but not committed is read again.
      PaimonSink.produce(stack, topic, source, CHANGES / 2, SampleCustomers::upsertValue);
      stack.worker().restart(Duration.ofMinutes(2));

      awaitAllCommittedAndCheck(stack, tables, sink.name(), topic, source.state());
    } finally {
      stack.connect().delete(sink.name()); // the other test's rebalance must move its tasks only
    }
  }

  @Test
  void debeziumEnvelopesThroughARebalanceEqualTheModel(LocalStack stack) throws Exception {
    String topic = "iceberg-cdc";
    stack.createTopic(topic, 4, Map.of());
    // No primary-key: the key columns are the fields of the Kafka key's struct (id). Format
    // version 3: deletion vectors, which the coordinator merges per data file.
    ConnectorExample sink =
        keyedConfig(
            stack,
            "iceberg-cdc",
            topic,
            Map.of("route.orders.input", "debezium", "route.orders.format-version", "3"));
    String table = IcebergSink.tableOf(topic);
    SampleCustomers source = new SampleCustomers(11, CDC_KEYS, 0.2);
    int third = CDC_CHANGES / 3;
    // Envelopes, and after each delete the tombstone Debezium writes for log compaction.
    PaimonSink.produce(stack, topic, source, third, SampleCustomers::debeziumValue);
    stack.connect().putConfig(sink.name(), sink.config());
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      awaitCommittedBeyond(stack, tables, sink.name(), topic, 0);
      // A second worker joins while the first third is written, and takes a task: a new writer
      // for partitions whose rows the task's writer on the first worker wrote.
      ConnectWorker joiner = stack.addWorker();
      try {
        await()
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofMillis(500))
            .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, sink.name()))
            .until(() -> IcebergRebalanceE2E.tasksOn(stack, sink.name(), joiner) > 0);
        long before = endSum(stack, topic);
        PaimonSink.produce(stack, topic, source, third, SampleCustomers::debeziumValue);
        // Some of the second third is committed (one of the two tasks runs on the joiner): now
        // the joiner leaves, mid-stream.
        awaitCommittedBeyond(stack, tables, sink.name(), topic, before);
      } finally {
        joiner.close(); // graceful: its task moves back and reads its key index again
      }
      // A SIGTERM shuts Iceberg's static worker pool down before Connect stops the tasks: the
      // joiner's hand-over commits, key index reads and maintenance must not have needed it (they
      // log the exception in their WARN line). Iceberg's own clean-up after a conflicting
      // transaction still uses the pool; that only turns a retry into the next round's.
      String log = Files.readString(joiner.logFile());
      assertThat(log.lines().filter(l -> l.startsWith("[")).toList())
          .as("log lines of the worker that left (%s)", joiner.logFile())
          .noneMatch(l -> l.contains("RejectedExecutionException"))
          .noneMatch(l -> l.contains("Task threw an uncaught and unrecoverable exception"))
          .anyMatch(l -> l.contains("Stopped (io.streamhouse.connect.StreamhouseSinkTask)"));
      PaimonSink.produce(
          stack, topic, source, CDC_CHANGES - 2 * third, SampleCustomers::debeziumValue);
      awaitAllCommittedAndCheck(stack, tables, sink.name(), topic, source.state());
      assertThat(tables.table(table).schema().columns().stream().map(Types.NestedField::name))
          .as("columns of the table: the row image, no envelope fields")
          .containsExactly("id", "name", "tier", "balance", "version");
    } finally {
      stack.connect().delete(sink.name());
    }
  }

  /**
   * config-examples/quickstart.json made keyed: JSON struct keys (a tombstone has only its key), no
   * partition spec (the customers have no created_at).
   */
  static ConnectorExample keyedConfig(
      LocalStack stack, String name, String topic, Map<String, String> overrides) {
    Map<String, String> config =
        new HashMap<>(IcebergSink.config(stack, name, topic, overrides).config());
    config.remove("route.orders.partition-by");
    config.put("tasks.max", "2");
    config.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
    config.put("key.converter.schemas.enable", "true");
    return new ConnectorExample(name, config);
  }

  /**
   * Waits until the table's watermarks sum to the topic's end offsets, then checks the table with
   * Iceberg's own reader against the model, and its delete files.
   */
  static void awaitAllCommittedAndCheck(
      LocalStack stack,
      IcebergTables tables,
      String connector,
      String topic,
      Map<Long, Map<String, Object>> model) {
    awaitAllCommittedAndCheck(stack, tables, connector, topic, IcebergSink.tableOf(topic), model);
  }

  /** As above, for a topic routed to {@code table}. */
  static void awaitAllCommittedAndCheck(
      LocalStack stack,
      IcebergTables tables,
      String connector,
      String topic,
      String table,
      Map<Long, Map<String, Object>> model) {
    awaitAllCommitted(stack, tables, connector, topic, table);

    assertThat(tables.watermarks(table, connector))
        .as("watermarks of %s", table)
        .isEqualTo(PaimonSink.endOffsets(stack, topic));
    Map<Long, Map<String, Object>> rows = new TreeMap<>();
    Set<Long> twice = new TreeSet<>();
    for (Map<String, Object> row : tables.rows(table)) {
      Long id = (Long) row.get("id");
      if (rows.put(id, row) != null) {
        twice.add(id);
      }
    }
    assertThat(twice).as("ids with more than one row in %s", table).isEmpty();
    io.streamhouse.connect.table.iceberg.KeyedTableCheck.Report check =
        io.streamhouse.connect.table.iceberg.KeyedTableCheck.check(tables.table(table));
    assertThat(check.oneRowPerKey()).as("%s", check).isTrue();
    assertThat(check.keys()).as("%s", check).isEqualTo(model.size());
    Set<Long> missing = new TreeSet<>(model.keySet());
    missing.removeAll(rows.keySet());
    Set<Long> extra = new TreeSet<>(rows.keySet());
    extra.removeAll(model.keySet());
    assertThat(missing).as("ids missing from %s (of %d)", table, model.size()).isEmpty();
    assertThat(extra).as("ids in %s that the source deleted or never had", table).isEmpty();
    List<Long> stale = new ArrayList<>();
    model.forEach(
        (id, row) -> {
          if (!row.equals(rows.get(id))) {
            stale.add(id);
          }
        });
    assertThat(stale)
        .as(
            "ids whose row in %s is not the latest (first: %s, expected %s)",
            table,
            stale.isEmpty() ? null : rows.get(stale.get(0)),
            stale.isEmpty() ? null : model.get(stale.get(0)))
        .isEmpty();
    assertThat(rows).as("rows of %s", table).hasSameSizeAs(model);

    assertPositionDeletesOnly(tables.table(table));
    assertThat(deadLetters(stack, "dlq-" + connector))
        .as("records sent to the dead-letter queue")
        .isZero();
  }

  /** Waits until the table's watermarks sum to the topic's end offsets. */
  static void awaitAllCommitted(
      LocalStack stack, IcebergTables tables, String connector, String topic) {
    awaitAllCommitted(stack, tables, connector, topic, IcebergSink.tableOf(topic));
  }

  /** Waits until the watermarks of {@code table} sum to the end offsets of {@code topic}. */
  static void awaitAllCommitted(
      LocalStack stack, IcebergTables tables, String connector, String topic, String table) {
    long end = endSum(stack, topic);
    await()
        .atMost(ALL_COMMITTED)
        .pollInterval(Duration.ofSeconds(2))
        .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, connector))
        .until(() -> watermarkSum(tables, table, connector) == end);
  }

  /** Waits until the table's watermarks sum to more than {@code offsets}. */
  private static void awaitCommittedBeyond(
      LocalStack stack, IcebergTables tables, String connector, String topic, long offsets) {
    String table = IcebergSink.tableOf(topic);
    await()
        .atMost(ALL_COMMITTED)
        .pollInterval(Duration.ofMillis(500))
        .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, connector))
        .until(() -> watermarkSum(tables, table, connector) > offsets);
  }

  /**
   * No snapshot added an equality delete file, and some snapshot added a position delete file; on a
   * format-v3 table every delete file is a deletion vector and no data file has two.
   */
  static void assertPositionDeletesOnly(Table table) {
    boolean v3 = org.apache.iceberg.TableUtil.formatVersion(table) >= 3;
    try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
        table.newScan().planFiles()) {
      for (org.apache.iceberg.FileScanTask task : tasks) {
        for (DeleteFile file : task.deletes()) {
          assertThat(file.format())
              .as("delete file %s of %s", file.location(), table.name())
              .isEqualTo(
                  v3
                      ? org.apache.iceberg.FileFormat.PUFFIN
                      : org.apache.iceberg.FileFormat.PARQUET);
        }
        if (v3) {
          assertThat(task.deletes())
              .as("deletion vectors of %s", task.file().location())
              .hasSizeLessThan(2);
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    List<String> equalityDeletes = new ArrayList<>();
    int positionDeletes = 0;
    int snapshots = 0;
    for (Snapshot s : table.snapshots()) {
      snapshots++;
      for (DeleteFile file :
          SnapshotChanges.builderFor(table).snapshot(s).build().addedDeleteFiles()) {
        if (file.content() == FileContent.EQUALITY_DELETES) {
          equalityDeletes.add(s.snapshotId() + ": " + file.location());
        } else if (file.content() == FileContent.POSITION_DELETES) {
          positionDeletes++;
        }
      }
    }
    assertThat(equalityDeletes)
        .as("equality delete files added by the %d snapshots of %s", snapshots, table.name())
        .isEmpty();
    assertThat(positionDeletes)
        .as("position delete files added by the %d snapshots of %s", snapshots, table.name())
        .isPositive();
    assertThat(table.schema().identifierFieldNames())
        .as("identifier fields of %s", table.name())
        .containsExactly("id");
  }

  private static long watermarkSum(IcebergTables tables, String table, String connector) {
    return tables.exists(table)
        ? tables.watermarks(table, connector).values().stream().mapToLong(Long::longValue).sum()
        : 0;
  }

  private static long endSum(LocalStack stack, String topic) {
    return PaimonSink.endOffsets(stack, topic).values().stream().mapToLong(Long::longValue).sum();
  }

  /** Records in a dead-letter topic, 0 if it was never created. */
  private static long deadLetters(LocalStack stack, String topic) {
    try (Admin admin = stack.admin()) {
      if (!admin.listTopics().names().get().contains(topic)) {
        return 0;
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return endSum(stack, topic);
  }
}
