package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Hundreds of commit rounds (one every 300 ms) with the coordinator's maintenance on, while a
 * reader keeps scanning the table: the snapshots stay bounded by the expiry settings, compaction
 * keeps the live data files far below the files committed, every record lands once, the reader
 * never fails and the watermarks stay readable.
 */
@ExtendWith(LocalStackExtension.class)
class IcebergMaintenanceE2E {
  private static final int SLICES = 220;
  private static final int SLICE = 200;

  @Test
  void hundredsOfRoundsWithMaintenanceKeepTheTableBoundedAndEveryRecordOnce(LocalStack stack)
      throws Exception {
    String topic = "maintained";
    stack.createTopic(topic, 4, Map.of());
    ConnectorExample sink =
        IcebergSink.config(
            stack,
            "maintained",
            topic,
            Map.of(
                "tasks.max",
                "2",
                "commit.interval.ms",
                "300",
                "maintenance.interval.ms",
                "2000",
                "maintenance.expire.max-age.ms",
                "5000",
                "maintenance.expire.min-snapshots",
                "5"));
    stack.connect().putConfig(sink.name(), sink.config());
    String table = IcebergSink.tableOf(topic);

    Set<Long> produced = new HashSet<>();
    int maxSnapshots = 0;
    long maxLiveFiles = 0;
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      IcebergFaultsE2E.produce(stack, topic, -SLICE, SLICE, produced);
      await().atMost(Duration.ofMinutes(1)).until(() -> tables.exists(table));
      // The reader starts once the catalog is initialized (two SQLite catalogs must not upgrade
      // its schema at once).
      AtomicBoolean reading = new AtomicBoolean(true);
      AtomicInteger scans = new AtomicInteger();
      List<Throwable> readFailures = Collections.synchronizedList(new ArrayList<>());
      Thread reader =
          new Thread(
              () -> {
                try (IcebergTables own = IcebergSink.tables(stack)) {
                  while (reading.get()) {
                    try {
                      if (own.exists(table)) {
                        own.rows(table);
                        scans.incrementAndGet();
                      }
                    } catch (RuntimeException e) {
                      readFailures.add(e);
                    }
                  }
                }
              },
              "reader");
      reader.start();

      for (int i = 0; i < SLICES; i++) {
        IcebergFaultsE2E.produce(stack, topic, (long) i * SLICE, SLICE, produced);
        await().pollDelay(Duration.ofMillis(300)).until(() -> true); // pacing, not a wait
        if (tables.exists(table)) {
          maxSnapshots = Math.max(maxSnapshots, snapshots(tables, table));
          maxLiveFiles = Math.max(maxLiveFiles, liveDataFiles(tables, table));
        }
      }
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, sink.name()))
          .untilAsserted(
              () ->
                  assertThat(
                          tables.watermarks(table, sink.name()).values().stream()
                              .mapToLong(Long::longValue)
                              .sum())
                      .isEqualTo((long) (SLICES + 1) * SLICE));
      reading.set(false);
      reader.join();

      String log = Files.readString(stack.worker().logFile());
      int rounds = count(log, "\\[maintained\\|task-0\\] Commit \\d+ of local:" + table + ":");
      int expired =
          sum(log, "\\[maintained\\|task-0\\] Maintained local:" + table + " in \\d+ ms: (\\d+)");
      int committedFiles =
          sum(
              log,
              "\\[maintained\\|task-0\\] Commit \\d+ of local:"
                  + table
                  + ": \\d+ batches, \\d+ records in (\\d+) files");
      int rewritten =
          sum(
              log,
              "\\[maintained\\|task-0\\] Maintained local:"
                  + table
                  + " in .* (\\d+) files \\(\\d+ bytes\\) rewritten");
      long liveFiles = liveDataFiles(tables, table);
      System.out.printf(
          "maintenance e2e: %d commit rounds, %d snapshots expired, snapshots at most %d during the"
              + " run and %d at the end; %d data files committed, %d rewritten, live data files at"
              + " most %d during the run and %d at the end; %d scans by the reader%n",
          rounds,
          expired,
          maxSnapshots,
          snapshots(tables, table),
          committedFiles,
          rewritten,
          maxLiveFiles,
          liveFiles,
          scans.get());
      assertThat(rewritten).as("small files compacted").isPositive();
      assertThat(liveFiles)
          .as("live data files stay far below the %d files committed", committedFiles)
          .isLessThan(committedFiles / 3);
      assertThat(rounds).as("commit rounds").isGreaterThanOrEqualTo(180);
      assertThat(expired).as("snapshots expired by the coordinator").isGreaterThan(rounds / 2);
      assertThat(maxSnapshots)
          .as("snapshots stay bounded by max-age 5 s + a 2 s pass interval, far below %d", rounds)
          .isLessThan(60);
      assertThat(readFailures).as("the reader never failed").isEmpty();
      assertThat(scans.get()).isGreaterThan(10);
      IcebergSink.assertExactlyOnce(stack, tables, sink.name(), topic, produced);
    }
    stack.connect().delete(sink.name());
  }

  private static int snapshots(IcebergTables tables, String table) {
    return (int) StreamSupport.stream(tables.table(table).snapshots().spliterator(), false).count();
  }

  /**
   * The worker dies (kill -9) with a round's files written and offered but not committed: after the
   * restart the records are written again into new files, and the files of the lost round, which
   * nothing references, are deleted once they are older than {@code maintenance.orphans.min-age.ms}
   * (30 s here). Every record once, every file the table references still there. One task: with
   * two, the round the worker dies in is the one the first task's hand-in asked for, whose batches
   * the restarted tasks read on after and commit (docs/architecture.md, "Reading on after a
   * hand-in"), so that no file of it is left over.
   */
  @Test
  void filesOfARoundThatWasNeverCommittedAreDeletedOnceOldEnough(LocalStack stack)
      throws Exception {
    String topic = "orphaned";
    stack.createTopic(topic, 4, Map.of());
    java.nio.file.Path marker = stack.runDir().resolve("halted-orphaned");
    ConnectorExample sink =
        IcebergSink.config(
            stack,
            "orphaned",
            topic,
            Map.of(
                "tasks.max",
                "1",
                "streamhouse.test.halt-at",
                "BEFORE_TABLE_COMMIT:" + marker,
                "maintenance.interval.ms",
                "2000",
                "maintenance.orphans.min-age.ms",
                "30000"));
    Set<Long> produced = new HashSet<>();
    IcebergFaultsE2E.produce(stack, topic, 0, 4_000, produced);
    stack.connect().putConfig(sink.name(), sink.config());
    assertThat(stack.worker().process().awaitExit(Duration.ofMinutes(2))).isTrue();
    String table = IcebergSink.tableOf(topic);
    java.nio.file.Path data;
    Set<java.nio.file.Path> orphans;
    try (IcebergTables tables = IcebergSink.tables(stack)) {
      data =
          java.nio.file.Path.of(tables.table(table).location().replaceFirst("^file:", ""), "data");
      orphans = filesUnder(data);
    }
    assertThat(orphans).as("the lost round's data files").isNotEmpty();
    stack.worker().restart(Duration.ofMinutes(2));

    try (IcebergTables tables = IcebergSink.tables(stack)) {
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, sink.name()))
          .untilAsserted(
              () -> {
                assertThat(
                        tables.watermarks(table, sink.name()).values().stream()
                            .mapToLong(Long::longValue)
                            .sum())
                    .isEqualTo(4_000);
                assertThat(orphans).noneMatch(java.nio.file.Files::exists);
              });
      IcebergSink.assertExactlyOnce(stack, tables, sink.name(), topic, produced);
      Set<java.nio.file.Path> referenced = new HashSet<>();
      try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
          tables.table(table).newScan().planFiles()) {
        tasks.forEach(
            t ->
                referenced.add(
                    java.nio.file.Path.of(t.file().location().replaceFirst("^file:", ""))));
      }
      assertThat(referenced).isNotEmpty().allMatch(java.nio.file.Files::exists);
      System.out.printf(
          "orphan e2e: %d files of the lost round deleted; %d data files on disk, %d referenced%n",
          orphans.size(), filesUnder(data).size(), referenced.size());
    }
    stack.connect().delete(sink.name());
  }

  private static Set<java.nio.file.Path> filesUnder(java.nio.file.Path dir) throws Exception {
    try (java.util.stream.Stream<java.nio.file.Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile).collect(java.util.stream.Collectors.toSet());
    }
  }

  private static long liveDataFiles(IcebergTables tables, String table) {
    org.apache.iceberg.Snapshot current = tables.table(table).currentSnapshot();
    return current == null ? 0 : Long.parseLong(current.summary().get("total-data-files"));
  }

  private static int count(String log, String regex) {
    Matcher m = Pattern.compile(regex).matcher(log);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  private static int sum(String log, String regex) {
    Matcher m = Pattern.compile(regex).matcher(log);
    int n = 0;
    while (m.find()) {
      n += Integer.parseInt(m.group(1));
    }
    return n;
  }
}
