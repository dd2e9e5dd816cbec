package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Transaction-consistent CDC on a Nessie catalog: bank transfers as Debezium transactions ({@code
 * provide.transaction.metadata=true}). Two account tables, keyed, each fed by a topic of Debezium
 * envelopes (4 and 3 partitions, keyed by account), and the transaction topic ({@code BEGIN} and
 * {@code END}, 1 partition) routed to an append table; an opening transaction inserts every
 * account, then thousands of transfers move money, most between the two tables. Records stream
 * across many rounds, two tasks on two workers, while a worker is killed like kill -9 and a third
 * worker joins and leaves. Checked at every Nessie commit of the run: the balances sum to nothing
 * or to the opening total, the transactions table holds a prefix of the source's transactions, and
 * both account tables are the source after exactly that prefix (see {@link BankLedgerCheck}); at
 * the end both tables equal the source and the transactions table holds every {@code END} once.
 */
@ExtendWith({NeedsJava21.class, LocalStackExtension.class})
class NessieTransactionsE2E {
  private static final String PREFIX = "bank";
  private static final String ACCOUNTS_A = "public.accounts_a";
  private static final String ACCOUNTS_B = "public.accounts_b";
  private static final Map<String, String> TABLE_OF =
      Map.of(ACCOUNTS_A, "bank.accounts_a", ACCOUNTS_B, "bank.accounts_b");
  private static final String TRANSACTIONS_TABLE = "bank.source_transactions";
  private static final int ACCOUNTS_PER_TABLE = 200;

  /**
   * Transfers produced at least, and after the fault schedule ended; a slice of them is produced
   * and flushed, then a pause: the records of most rounds end inside a stream of transactions.
   */
  private static final int MIN_TRANSFERS = 3_000;

  private static final int TAIL_TRANSFERS = 200;

  /** Nessie commits (table creations included) the run makes at least while producing. */
  private static final int MIN_COMMITS = 12;

  private static final int MAX_TRANSFERS = 12_000;
  private static final int SLICE = 2;
  private static final Duration SLICE_PAUSE = Duration.ofMillis(40);

  /**
   * A transaction that cannot become whole holds the rounds for transactions.timeout.ms (5 minutes
   * by default) before they commit what arrived: a connector not caught up after twice that has
   * stalled.
   */
  private static final Duration CATCH_UP = Duration.ofMinutes(10);

  @Test
  void everyNessieCommitHoldsWholeBankTransfersThroughAKillAndRebalances(LocalStack stack)
      throws Exception {
    try (NessieServer nessie = E2eSettings.nessieInMemory(stack)) {
      BankTransfers source =
          new BankTransfers(23, List.of(ACCOUNTS_A, ACCOUNTS_B), ACCOUNTS_PER_TABLE);
      DebeziumTransactions debezium =
          new DebeziumTransactions(PREFIX, "bank", BankTransfers::rowSchema);
      stack.createTopic(debezium.topicOf(ACCOUNTS_A), 4, Map.of());
      stack.createTopic(debezium.topicOf(ACCOUNTS_B), 3, Map.of());
      stack.createTopic(debezium.transactionTopic(), 1, Map.of());
      ConnectorExample sink = config(stack, nessie, debezium);
      ConnectWorker second = stack.addWorker();
      List<String> faults = new ArrayList<>();
      AtomicBoolean faultsDone = new AtomicBoolean();
      try (IcebergTables tables =
              IcebergTables.rest(nessie.icebergUri(), NessieRounds.fileIo(nessie));
          NessieRounds rounds = new NessieRounds(nessie, sink.name());
          NessieTableRows reader = new NessieTableRows(nessie)) {
        stack.connect().putConfig(sink.name(), sink.config());
        CompletableFuture<Integer> producing =
            CompletableFuture.supplyAsync(
                () ->
                    produce(
                        stack,
                        debezium,
                        source,
                        faultsDone,
                        () -> commitsAtLeast(nessie, MIN_COMMITS)));
        try {
          await("a first round committed")
              .atMost(Duration.ofMinutes(2))
              .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, sink.name()))
              .until(() -> !rounds.roundsAt(nessie.headHash()).isEmpty());
          faults.add("kill -9 " + stack.worker().name());
          stack.worker().process().signal("KILL");
          stack.worker().restart(Duration.ofMinutes(2));
          pause(Duration.ofSeconds(3));
          faults.add("a third worker joins and leaves");
          ConnectWorker third = stack.addWorker();
          pause(Duration.ofSeconds(6));
          third.close();
        } finally {
          faultsDone.set(true);
        }
        int transfers = producing.join();

        // Check 2, once the connector caught up: both tables equal the source, the transactions
        // table holds every END once. Reported after check 1, which walks whatever was committed:
        // a connector that stalled still shows whether the commits it made were whole.
        Throwable endState =
            catchThrowable(() -> checkEndState(stack, tables, sink.name(), debezium, source));

        // Check 1: every Nessie commit of the run holds whole transactions only.
        BankLedgerCheck.Result walk =
            new BankLedgerCheck(reader, source, TABLE_OF, TRANSACTIONS_TABLE)
                .checkEach(nessie.commitHashes());
        System.out.printf(
            "NessieTransactionsE2E: %d Nessie commits checked (%d metadata files read), %d of them"
                + " cut a transaction; %d transactions (%d transfers), %d distinct whole prefixes"
                + " committed; end state %s; faults: %s%n",
            walk.commits(),
            reader.metadataFilesRead(),
            walk.violations().size(),
            source.transactions().size(),
            transfers,
            walk.prefixes().size(),
            endState == null ? "as the source" : "wrong",
            faults);
        SoftAssertions softly = new SoftAssertions();
        softly
            .assertThat(walk.violations().size())
            .as(
                "Nessie commits (of %d) that show part of a transaction, after %s; the first:%n%s",
                walk.commits(),
                faults,
                String.join(
                    "\n", walk.violations().subList(0, Math.min(5, walk.violations().size()))))
            .isZero();
        if (endState != null) {
          softly.fail("the end state (check 2), after " + faults + ": " + endState, endState);
        }
        softly
            .assertThat(walk.prefixes())
            .as("distinct prefixes of transactions committed")
            .hasSizeGreaterThan(5);
        softly
            .assertThat(
                tables.exists(TRANSACTIONS_TABLE) ? tables.rows(TRANSACTIONS_TABLE) : List.of())
            .as(
                "rows of BEGIN events in %s: the transaction mode writes END rows only",
                TRANSACTIONS_TABLE)
            .noneMatch(r -> "BEGIN".equals(r.get("status")));
        softly.assertAll();
      } finally {
        second.close();
      }
      stack.connect().delete(sink.name());
    }
  }

  /**
   * Check 2: waits until the connector caught up with every topic, then both account tables equal
   * the source and the transactions table holds every END once.
   */
  private static void checkEndState(
      LocalStack stack,
      IcebergTables tables,
      String connector,
      DebeziumTransactions debezium,
      BankTransfers source) {
    Map<String, String> tableOfTopic = new LinkedHashMap<>();
    TABLE_OF.forEach((collection, table) -> tableOfTopic.put(debezium.topicOf(collection), table));
    tableOfTopic.put(debezium.transactionTopic(), TRANSACTIONS_TABLE);
    await("the connector caught up with " + tableOfTopic.keySet())
        .atMost(CATCH_UP)
        .pollInterval(Duration.ofSeconds(2))
        .failFast("connector failed", () -> IcebergExactlyOnceE2E.failed(stack, connector))
        .until(
            () ->
                tableOfTopic.entrySet().stream()
                    .allMatch(e -> caughtUp(stack, tables, connector, e.getKey(), e.getValue())));
    for (String collection : source.collections()) {
      IcebergUpsertE2E.awaitAllCommittedAndCheck(
          stack,
          tables,
          connector,
          debezium.topicOf(collection),
          TABLE_OF.get(collection),
          source.state().get(collection));
    }
    List<String> ends =
        tables.rows(TRANSACTIONS_TABLE).stream()
            .filter(r -> !"BEGIN".equals(r.get("status")))
            .map(r -> (String) r.get("id"))
            .toList();
    List<String> order = source.transactions().stream().map(t -> t.id()).toList();
    assertThat(ends).as("END rows in %s", TRANSACTIONS_TABLE).hasSize(order.size());
    assertThat(new HashSet<>(ends))
        .as("transactions in %s", TRANSACTIONS_TABLE)
        .isEqualTo(new HashSet<>(order));
  }

  /**
   * The watermarks of {@code table} in the connector's last commit are the ends of {@code topic}.
   */
  private static boolean caughtUp(
      LocalStack stack, IcebergTables tables, String connector, String topic, String table) {
    return tables.exists(table)
        && tables.watermarks(table, connector).equals(PaimonSink.endOffsets(stack, topic));
  }

  /**
   * config-examples/iceberg-nessie-atomic.json pointed at this stack and Nessie: a route per topic,
   * the account tables keyed and fed by Debezium envelopes, the transaction topic to an append
   * table, JSON keys with schemas (Debezium's key structs), and the transaction mode.
   */
  private static ConnectorExample config(
      LocalStack stack, NessieServer nessie, DebeziumTransactions debezium) {
    ConnectorExample example = E2eSettings.nessieExample(stack, nessie);
    Map<String, String> config = new HashMap<>(example.config());
    config.keySet().removeIf(k -> k.startsWith("route.shop."));
    config.remove("topics.regex");
    config.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
    config.put("key.converter.schemas.enable", "true");
    List<String> topics = new ArrayList<>();
    Map<String, String> routes = new LinkedHashMap<>();
    routes.put("a", ACCOUNTS_A);
    routes.put("b", ACCOUNTS_B);
    routes.forEach(
        (route, collection) -> {
          String p = "route." + route + ".";
          topics.add(debezium.topicOf(collection));
          config.put(p + "topics", debezium.topicOf(collection));
          config.put(p + "table", TABLE_OF.get(collection));
          config.put(p + "auto-create", "true");
          config.put(p + "primary-key", "id");
          config.put(p + "input", "debezium");
        });
    topics.add(debezium.transactionTopic());
    config.put("route.tx.topics", debezium.transactionTopic());
    config.put("route.tx.table", TRANSACTIONS_TABLE);
    config.put("route.tx.auto-create", "true");
    config.put("routes", "a,b,tx");
    config.put("topics", String.join(",", topics));
    // The transaction mode: each Nessie commit holds whole source transactions only.
    config.put("transactions.topic", debezium.transactionTopic());
    config.put("transactions.topic.prefix", PREFIX);
    config.put("commit.interval.ms", "2000");
    config.put("commit.timeout.ms", "10000");
    config.put("control.topic", "ctl-bank");
    config.put("errors.deadletterqueue.topic.name", "dlq-bank-to-lake");
    return new ConnectorExample("bank-to-lake", config);
  }

  /**
   * The opening, then transfers in slices with pauses until at least {@link #MIN_TRANSFERS} are
   * produced and {@link #TAIL_TRANSFERS} more after the fault schedule ended; returns the number of
   * transfers.
   */
  /**
   * Produces until at least {@link #MIN_TRANSFERS}, {@link #TAIL_TRANSFERS} of them after the
   * faults, and until {@code enoughCommits} (the walk then has states between the first and the
   * last to check, however slow the machine), at most {@link #MAX_TRANSFERS}.
   */
  private static int produce(
      LocalStack stack,
      DebeziumTransactions debezium,
      BankTransfers source,
      AtomicBoolean faultsDone,
      BooleanSupplier enoughCommits) {
    try (JsonRecordProducer producer = stack.producer()) {
      send(producer, debezium, source.open());
      producer.flush();
      int transfers = 0;
      int afterFaults = 0;
      boolean enough = false;
      while (transfers < MAX_TRANSFERS
          && (transfers < MIN_TRANSFERS || afterFaults < TAIL_TRANSFERS || !enough)) {
        boolean faulted = faultsDone.get();
        for (int i = 0; i < SLICE; i++) {
          send(producer, debezium, source.transfer());
        }
        transfers += SLICE;
        afterFaults += faulted ? SLICE : 0;
        producer.flush();
        pause(SLICE_PAUSE);
        if (!enough && transfers % 100 == 0) {
          enough = enoughCommits.getAsBoolean(); // a look at the catalog now and then
        }
      }
      return transfers;
    }
  }

  private static boolean commitsAtLeast(NessieServer nessie, int commits) {
    try {
      return nessie.commitHashes().size() >= commits;
    } catch (RuntimeException e) {
      return false; // asked again a little later
    }
  }

  private static void send(
      JsonRecordProducer producer, DebeziumTransactions debezium, BankTransfers.Transaction tx) {
    for (DebeziumTransactions.Message m :
        debezium.messages(tx.id(), tx.txId(), tx.lsn(), tx.tsMs(), tx.events())) {
      producer.sendRaw(m.topic(), null, m.key(), m.value());
    }
  }

  /** The test's fault and production schedule, not a wait for a condition. */
  private static void pause(Duration duration) {
    await().pollDelay(duration).atMost(duration.plusSeconds(5)).until(() -> true);
  }
}
