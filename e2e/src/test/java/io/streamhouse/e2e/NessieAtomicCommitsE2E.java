package io.streamhouse.e2e;

import static java.util.stream.Collectors.toSet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Round-atomic commits against a real atomic catalog: a Nessie server (child JVM, object store in
 * S3Mock), config-examples/iceberg-nessie-atomic.json routing one topic to 20 tables by a field,
 * two tasks on two workers. While records stream, a worker is killed like kill -9, the catalog
 * freezes (an outage: connections accepted, nothing answered) and a third worker joins and leaves
 * (two rebalances); a reader meanwhile reads every table at one Nessie commit at random moments.
 * Halfway, records start to carry one of two new fields, so both tasks change the tables' schemas.
 * Checked afterwards, at every Nessie commit of the run: each round of the connector became visible
 * in exactly one Nessie commit, for all its tables at once; no reader sample saw a table behind a
 * round another table showed; a table has a new column only where it holds files written with it,
 * and no file written with a column the table does not have (the schema change commits with the
 * data); every append table holds each of its records exactly once with its new field's value, and
 * the primary-key table equals the source.
 */
@ExtendWith({NeedsJava21.class, LocalStackExtension.class})
class NessieAtomicCommitsE2E {
  private static final int TABLES = 20;
  private static final int SLICES = 40;
  private static final int PER_SLICE = 400;
  static final String TOPIC = "shop.events";
  static final int PARTITIONS = 4;
  static final String CHANGES = "shop.customers";
  private static final int CHANGES_PER_SLICE = 150;
  private static final int BAD_PER_SLICE = 3;
  private static final String DEAD_LETTERS = "errors.dead_letters";
  private static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";
  private static final ConnectJson.StructSchema SCHEMA =
      ConnectJson.struct("e2e.ShopEvent")
          .field("id", "int64", false)
          .field("table", "string", false)
          .field("note", "string", true);

  /**
   * From this slice on, records carry one new field or the other, so each task changes the schemas
   * of the tables, and two tasks at times give one new field id to different columns.
   */
  private static final int SCHEMA_CHANGE_SLICE = SLICES / 2;

  private static final List<String> NEW_COLUMNS = List.of("alpha", "beta");
  private static final Map<String, ConnectJson.StructSchema> WITH_NEW_COLUMN =
      Map.of(
          "alpha",
          ConnectJson.struct("e2e.ShopEvent")
              .field("id", "int64", false)
              .field("table", "string", false)
              .field("note", "string", true)
              .field("alpha", "string", true),
          "beta",
          ConnectJson.struct("e2e.ShopEvent")
              .field("id", "int64", false)
              .field("table", "string", false)
              .field("note", "string", true)
              .field("beta", "string", true));

  @Test
  void everyRoundBecomesVisibleInOneNessieCommitThroughAKillAnOutageAndRebalances(LocalStack stack)
      throws Exception {
    try (NessieServer nessie = E2eSettings.nessieInMemory(stack)) {
      stack.createTopic(TOPIC, PARTITIONS, Map.of());
      stack.createTopic(CHANGES, 2, Map.of());
      SampleCustomers source = new SampleCustomers(11, 1_000, 0.2);
      ConnectorExample sink = config(stack, nessie);
      Map<String, Set<Long>> produced = new ConcurrentHashMap<>(); // "bad": dead letters
      ConnectWorker second = stack.addWorker();
      List<String> faults = new ArrayList<>();
      List<Sample> samples = new ArrayList<>();
      try (IcebergTables tables =
              IcebergTables.rest(nessie.icebergUri(), NessieRounds.fileIo(nessie));
          NessieRounds reader = new NessieRounds(nessie, sink.name())) {
        stack.connect().putConfig(sink.name(), sink.config());
        CompletableFuture<Void> producing =
            CompletableFuture.runAsync(() -> produce(stack, produced, source));
        AtomicBoolean reading = new AtomicBoolean(true);
        CompletableFuture<Void> sampling =
            CompletableFuture.runAsync(() -> sample(nessie, reader, reading, samples));

        await("a first round committed")
            .atMost(Duration.ofMinutes(2))
            .until(() -> !reader.roundsAt(nessie.headHash()).isEmpty());
        faults.add("kill -9 " + stack.worker().name());
        stack.worker().process().signal("KILL");
        stack.worker().restart(Duration.ofMinutes(2));
        pause(Duration.ofSeconds(3));
        faults.add("catalog frozen 12 s");
        nessie.freeze();
        pause(Duration.ofSeconds(12));
        nessie.thaw();
        faults.add("a third worker joins and leaves");
        ConnectWorker third = stack.addWorker();
        pause(Duration.ofSeconds(6));
        third.close();
        producing.join();

        assertEveryRecordOnceWithItsNewField(stack, tables, sink.name(), produced, faults);
        IcebergUpsertE2E.awaitAllCommittedAndCheck(
            stack, tables, sink.name(), CHANGES, source.state());
        List<String> deadKeys =
            tables.rows(DEAD_LETTERS).stream().map(r -> (String) r.get("key")).toList();
        assertThat(deadKeys)
            .as("every bad record once in %s", DEAD_LETTERS)
            .hasSize(produced.get("bad").size());
        assertThat(new HashSet<>(deadKeys))
            .isEqualTo(produced.get("bad").stream().map(id -> "k" + id).collect(toSet()));
        reading.set(false);
        sampling.join();

        Map<Long, Set<String>> tablesOf =
            reader.assertEachRoundVisibleInOneCommit(faults.toString());
        assertThat(reader.assertNewColumnsCommitWithTheirFiles("shop.t", NEW_COLUMNS))
            .as("Nessie commits with a new column")
            .isPositive();
        System.out.printf("NessieAtomicCommitsE2E: %d reader samples%n", samples.size());
        assertThat(tablesOf).as("rounds committed").hasSizeGreaterThan(3);
        assertThat(samples).as("reader samples with rounds").hasSizeGreaterThan(5);
        for (Sample s : samples) {
          s.rounds()
              .forEach(
                  (table, round) ->
                      assertThat(tablesOf.get(round))
                          .as("tables of round %d, read at Nessie commit %s", round, s.hash())
                          .allSatisfy(
                              other ->
                                  assertThat(s.rounds().get(other))
                                      .as("%s beside %s", other, table)
                                      .isNotNull()
                                      .isGreaterThanOrEqualTo(round)));
        }
      } finally {
        second.close();
      }
      stack.connect().delete(sink.name());
    }
  }

  /**
   * Waits until each of the 20 tables holds as many records as were produced for it, then checks
   * that it holds each once, with the value of its new field.
   */
  static void assertEveryRecordOnceWithItsNewField(
      LocalStack stack,
      IcebergTables tables,
      String connector,
      Map<String, Set<Long>> produced,
      List<String> faults) {
    for (int t = 0; t < TABLES; t++) {
      String table = "shop.t" + t;
      Set<Long> expected = produced.get("t" + t);
      await(table + " holds every record")
          .atMost(Duration.ofMinutes(3))
          .pollInterval(Duration.ofSeconds(1))
          .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, connector))
          .until(() -> tables.exists(table) && tables.rows(table).size() >= expected.size());
      List<Map<String, Object>> rows = tables.rows(table);
      List<Long> ids = rows.stream().map(r -> (Long) r.get("id")).toList();
      assertThat(ids).as("%s after %s", table, faults).hasSize(expected.size());
      assertThat(new HashSet<>(ids)).as(table).isEqualTo(expected);
      for (Map<String, Object> row : rows) {
        long id = (Long) row.get("id");
        newColumn(id)
            .ifPresent(
                column ->
                    assertThat(row.get(column))
                        .as("%s of record %d in %s after %s", column, id, table, faults)
                        .isEqualTo(column + " " + id));
      }
    }
  }

  /** The example config, pointed at this stack and Nessie, routing by the {@code table} field. */
  static ConnectorExample config(LocalStack stack, NessieServer nessie) {
    ConnectorExample example = E2eSettings.nessieExample(stack, nessie);
    Map<String, String> config = new HashMap<>(example.config());
    config.put("topics.regex", "shop\\.events|shop\\.customers");
    config.put("route.shop.topics.regex", "shop\\.events");
    config.put("routes", "shop,customers");
    config.put("route.customers.topics", CHANGES);
    config.put("route.customers.table", IcebergSink.tableOf(CHANGES));
    config.put("route.customers.auto-create", "true");
    config.put("route.customers.primary-key", "id");
    config.put("route.customers.input", "debezium");
    config.put("errors.deadletter.table", "lake." + DEAD_LETTERS);
    config.remove("route.shop.table");
    config.put("route.shop.table.field", "table");
    config.put("route.shop.table.allow-regex", "t[0-9]+");
    config.put("route.shop.namespace", "shop");
    config.put("commit.interval.ms", "2000");
    config.put("commit.timeout.ms", "10000");
    config.put("control.topic", "ctl-atomic");
    return new ConnectorExample(example.name(), config);
  }

  /**
   * Slices of records, one table after another, and of changes to customers, with pauses: records
   * stream across rounds.
   */
  static void produce(LocalStack stack, Map<String, Set<Long>> produced, SampleCustomers source) {
    try (JsonRecordProducer producer = stack.producer()) {
      for (int slice = 0; slice < SLICES; slice++) {
        for (long id = (long) slice * PER_SLICE; id < (slice + 1L) * PER_SLICE; id++) {
          // A few records name a table the route refuses: they go to the dead-letter table.
          String table = id % (PER_SLICE / BAD_PER_SLICE) == 7 ? "bad" : "t" + (id % TABLES);
          Map<String, Object> payload = new LinkedHashMap<>();
          payload.put("id", id);
          payload.put("table", table);
          payload.put("note", "event " + id);
          Optional<String> column = newColumn(id);
          long value = id;
          column.ifPresent(c -> payload.put(c, c + " " + value));
          producer.sendWithSchema(
              TOPIC,
              partition(id),
              "k" + id,
              column.map(WITH_NEW_COLUMN::get).orElse(SCHEMA),
              payload);
          produced.computeIfAbsent(table, t -> ConcurrentHashMap.newKeySet()).add(id);
        }
        for (int i = 0; i < CHANGES_PER_SLICE; i++) {
          SampleCustomers.Change change = source.next();
          if (!change.isDelete() || change.before() != null) {
            producer.sendRaw(
                CHANGES,
                null,
                SampleCustomers.key(change.id()),
                SampleCustomers.debeziumValue(change));
          }
        }
        producer.flush();
        pause(Duration.ofMillis(1_000));
      }
    }
  }

  /** Each table's records go to the 4 partitions by turns. */
  private static int partition(long id) {
    return (int) ((id / TABLES) % PARTITIONS);
  }

  /**
   * The new field record {@code id} carries: none before the schema change, then alpha on
   * partitions 0 and 1 and beta on 2 and 3. With Connect's range assignment each task reads one of
   * the two, so both change a table's schema from the same columns with different new columns.
   */
  private static Optional<String> newColumn(long id) {
    if (id < (long) SCHEMA_CHANGE_SLICE * PER_SLICE) {
      return Optional.empty();
    }
    return Optional.of(NEW_COLUMNS.get(partition(id) < PARTITIONS / 2 ? 0 : 1));
  }

  /** Reads every table at the head commit at random moments until {@code reading} ends. */
  private static void sample(
      NessieServer nessie, NessieRounds reader, AtomicBoolean reading, List<Sample> samples) {
    Random random = new Random();
    while (reading.get()) {
      try {
        String hash = nessie.headHash();
        Map<String, Long> rounds = reader.roundsAt(hash);
        if (!rounds.isEmpty()) {
          synchronized (samples) {
            samples.add(new Sample(hash, rounds));
          }
        }
      } catch (RuntimeException outage) {
        // The catalog is frozen: a reader waits like any other.
      }
      pause(Duration.ofMillis(200 + random.nextInt(1_300)));
    }
  }

  /** What a reader saw at one Nessie commit: each table's round. */
  private record Sample(String hash, Map<String, Long> rounds) {}

  /** The test's fault schedule, not a wait for a condition. */
  private static void pause(Duration duration) {
    await().pollDelay(duration).atMost(duration.plusSeconds(5)).until(() -> true);
  }
}
