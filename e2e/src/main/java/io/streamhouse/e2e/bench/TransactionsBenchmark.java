package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.BankTransfers;
import io.streamhouse.e2e.DebeziumTransactions;
import io.streamhouse.e2e.IcebergTables;
import io.streamhouse.e2e.JsonRecordProducer;
import io.streamhouse.e2e.LocalStack;
import io.streamhouse.e2e.NessieServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;

/**
 * Transaction-consistent CDC against plain CDC on the same atomic Nessie catalog: bank transfers as
 * Debezium transactions (two keyed account tables, the transaction topic to an append table), one
 * connector per mode on topics of its own with the same records. First a drain of a backlog
 * (records/s until every record is durable), then a steady stream at a fixed rate, during which a
 * reader polls the transactions table: a transaction's freshness is the time from its END event's
 * timestamp (set when it is produced) to the moment its row is seen. The worker's peak heap and RSS
 * show the memory held.
 *
 * <pre>
 * e2e/benchmark-transactions.sh [--transfers 20000] [--rate 100] [--seconds 60] [--tasks 2]
 *     [--commit-interval-ms 2000] [--heap 1g]
 * </pre>
 */
public final class TransactionsBenchmark {
  private static final List<String> TABLES = List.of("public.accounts_a", "public.accounts_b");
  private static final Duration SEEN_TIMEOUT = Duration.ofMinutes(3);

  private final Map<String, String> o;
  private final Path root;
  private final Path runDir;
  private final List<Map<String, String>> results = new ArrayList<>();
  private final Map<String, BankTransfers> banks = new HashMap<>();

  private TransactionsBenchmark(Map<String, String> o) {
    this.o = o;
    this.root = Path.of(o.getOrDefault("repo-root", ".")).toAbsolutePath().normalize();
    this.runDir =
        Path.of(o.getOrDefault("run-dir", root.resolve("e2e/target/bench").toString()))
            .resolve("transactions-" + System.currentTimeMillis());
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    TransactionsBenchmark bench = new TransactionsBenchmark(o);
    bench.run();
    System.out.println();
    System.out.printf(
        "Bank transfers as Debezium transactions: %s backlog transactions, then %s tx/s for %s s;"
            + " %s tasks, commit.interval.ms %s, worker heap %s; one Nessie 0.99 catalog,"
            + " commit.atomic=true in both modes%n",
        bench.intOption("transfers", 20_000),
        bench.intOption("rate", 100),
        bench.intOption("seconds", 60),
        bench.intOption("tasks", 2),
        bench.intOption("commit-interval-ms", 2_000),
        o.getOrDefault("heap", "1g"));
    MarkdownTable.print(bench.results);
  }

  private int intOption(String name, int fallback) {
    return Integer.parseInt(o.getOrDefault(name, Integer.toString(fallback)));
  }

  private void run() throws Exception {
    Path plugins = runDir.resolve("plugins");
    BenchPlugins.streamhouse(
        plugins, root.resolve("connector/target/plugin-path/streamhouse-connect"));
    Path dists = root.resolve("e2e/target/e2e-work/kafka-dists");
    try (LocalStack stack =
            LocalStack.settings()
                .kafkaVersion("4.4.0")
                .runDir(runDir.resolve("kafka"))
                .pluginPath(plugins)
                .distributionCache(dists)
                .mavenCmd(root.resolve("mvnw").toString())
                .workerJvmFlags(BenchWorkers.workerFlags(o.getOrDefault("heap", "1g")))
                .start();
        NessieServer nessie =
            NessieServer.start(
                runDir.resolve("nessie"),
                dists,
                root.resolve("mvnw").toString(),
                NessieServer.Store.IN_MEMORY)) {
      Map<String, Long> backlog = new TreeMap<>();
      for (String mode : List.of("plain", "transactions")) {
        backlog.put(mode, produceBacklog(stack, mode));
      }
      stack.worker().close();
      for (String mode : List.of("plain", "transactions")) {
        measure(stack, nessie, mode, backlog.get(mode));
      }
    }
  }

  /** The Debezium records of mode {@code mode}'s own topics. */
  private static DebeziumTransactions debezium(String mode) {
    return new DebeziumTransactions(prefix(mode), "bank", BankTransfers::rowSchema);
  }

  private static String prefix(String mode) {
    return "bank" + mode.charAt(0);
  }

  /** The opening and the backlog of transfers, the same seed for each mode; returns records. */
  private long produceBacklog(LocalStack stack, String mode) {
    DebeziumTransactions debezium = debezium(mode);
    stack.createTopic(debezium.topicOf(TABLES.get(0)), 4, Map.of());
    stack.createTopic(debezium.topicOf(TABLES.get(1)), 3, Map.of());
    stack.createTopic(debezium.transactionTopic(), 1, Map.of());
    BankTransfers bank = new BankTransfers(7, TABLES, 200);
    banks.put(mode, bank);
    long records = 0;
    try (JsonRecordProducer producer = stack.producer()) {
      records += send(producer, debezium, bank.open());
      for (int i = 0; i < intOption("transfers", 20_000); i++) {
        records += send(producer, debezium, bank.transfer());
      }
      producer.flush();
    }
    return records;
  }

  static int send(
      JsonRecordProducer producer, DebeziumTransactions debezium, BankTransfers.Transaction tx) {
    List<DebeziumTransactions.Message> messages =
        debezium.messages(tx.id(), tx.txId(), tx.lsn(), System.currentTimeMillis(), tx.events());
    for (DebeziumTransactions.Message m : messages) {
      producer.sendRaw(m.topic(), null, m.key(), m.value());
    }
    return messages.size();
  }

  private Map<String, String> config(
      LocalStack stack, String mode, String name, NessieServer nessie) {
    DebeziumTransactions debezium = debezium(mode);
    Map<String, String> c = new HashMap<>();
    c.put("kafka.bootstrap.servers", stack.bootstrapServers());
    c.put("connector.class", "io.streamhouse.connect.StreamhouseSinkConnector");
    c.put("tasks.max", Integer.toString(intOption("tasks", 2)));
    c.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    c.put("topics.regex", prefix(mode) + "\\..*");
    c.put("catalogs", "lake");
    nessie.catalogProperties().forEach((k, v) -> c.put("catalog.lake." + k, v));
    c.put("catalog.lake.commit.atomic", "true");
    c.put("routes", "a,b,tx");
    String namespace = "bank_" + mode;
    for (int i = 0; i < 2; i++) {
      String r = "route." + (i == 0 ? "a" : "b") + ".";
      c.put(r + "topics", debezium.topicOf(TABLES.get(i)));
      c.put(r + "table", namespace + ".accounts_" + (i == 0 ? "a" : "b"));
      c.put(r + "input", "debezium");
      c.put(r + "primary-key", "id");
      c.put(r + "auto-create", "true");
    }
    c.put("route.tx.topics", debezium.transactionTopic());
    c.put("route.tx.table", namespace + ".source_transactions");
    c.put("route.tx.auto-create", "true");
    if (mode.equals("transactions")) {
      c.put("transactions.topic", debezium.transactionTopic());
    }
    c.put("commit.interval.ms", Integer.toString(intOption("commit-interval-ms", 2_000)));
    c.put("control.topic", "ctl-" + name);
    return c;
  }

  /** What an Iceberg client needs beside the REST URI to read the catalog's files. */
  private static Map<String, String> fileIo(NessieServer nessie) {
    Map<String, String> props = new HashMap<>(nessie.catalogProperties());
    props.remove("uri");
    props.remove("type");
    return props;
  }

  private void measure(LocalStack stack, NessieServer nessie, String mode, long backlog)
      throws Exception {
    stack.worker().restart(Duration.ofMinutes(2));
    String name = "bank-" + mode;
    Map<String, String> config = config(stack, mode, name, nessie);
    System.out.println("Config of " + mode + ": " + new TreeMap<>(config));
    FanoutDrain drain = new FanoutDrain((int) backlog, o.getOrDefault("heap", "1g"), false);
    try (Admin admin = stack.admin();
        IcebergTables tables = IcebergTables.rest(nessie.icebergUri(), fileIo(nessie))) {
      Map<String, String> row =
          drain.run(
              stack,
              name,
              config,
              () -> DurableRecords.committed(admin, name),
              200,
              mode,
              3,
              intOption("tasks", 2),
              0);
      row.remove("MB/s");
      row.put(
          "freshness s (p50/p95/max)",
          SteadyTransfers.freshness(
              stack,
              debezium(mode),
              banks.get(mode),
              tables,
              "bank_" + mode + ".source_transactions",
              intOption("rate", 100),
              intOption("seconds", 60),
              SEEN_TIMEOUT));
      stack.connect().delete(name);
      row.putAll(CommitLogs.commitFigures(stack.worker().logFile(), name));
      results.add(row);
      System.out.println(row);
    } finally {
      stack.worker().close();
    }
  }
}
