package io.streamhouse.e2e;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A deterministic bank as a transactional source: accounts in several tables ({@code schema.table}
 * data collections), an opening transaction that inserts every account with its starting balance,
 * then transfers, each a transaction that moves money between accounts. Most transfers go between
 * two tables, some stay in one table, some pay several accounts at once (3 or 4 updates). Money is
 * only moved, so the sum of all balances stays the opening total; a reader that sees part of a
 * transfer sees another sum. {@link #replay(int)} is each table after the first n transactions.
 */
public final class BankTransfers {
  /** One source transaction, its events in commit order. */
  public record Transaction(
      String id, long txId, long lsn, long tsMs, List<DebeziumTransactions.Event> events) {}

  private static final double SPLIT_SHARE = 0.1;
  private static final double SAME_TABLE_SHARE = 0.2;
  private static final int MAX_AMOUNT = 10_000;

  private final Random random;
  private final List<String> collections;
  private final int accountsPerTable;
  private final Map<String, Map<Long, Map<String, Object>>> state = new LinkedHashMap<>();
  private final List<Transaction> transactions = new ArrayList<>();
  private long txId = 5_000;
  private long lsn = 24_000_000;
  private long openingTotal;

  /**
   * Accounts {@code accountsPerTable} in each of {@code collections}; {@code seed} fixes it all.
   */
  public BankTransfers(long seed, List<String> collections, int accountsPerTable) {
    this.random = new Random(seed);
    this.collections = List.copyOf(collections);
    this.accountsPerTable = accountsPerTable;
    collections.forEach(c -> state.put(c, new TreeMap<>()));
  }

  /** The row schema of an account table, with the given schema name. */
  public static ConnectJson.StructSchema rowSchema(String name) {
    return ConnectJson.struct(name)
        .field("id", "int64", false)
        .field("owner", "string", false)
        .field("balance", "int64", false)
        .field("last_tx", "string", true);
  }

  /** The opening: one transaction that inserts every account of every table. */
  public Transaction open() {
    if (!transactions.isEmpty()) {
      throw new IllegalStateException("The bank is open already");
    }
    String id = nextId();
    List<DebeziumTransactions.Event> events = new ArrayList<>();
    for (String collection : collections) {
      for (int i = 0; i < accountsPerTable; i++) {
        long account = accountId(collection, i);
        long balance = 100_000 + random.nextInt(900_000); // cents
        openingTotal += balance;
        events.add(change(collection, account, balance, id));
      }
    }
    return record(id, events);
  }

  /** The next transfer: a transaction of 2 to 4 updates that moves money and keeps the sum. */
  public Transaction transfer() {
    if (transactions.isEmpty()) {
      throw new IllegalStateException("Open the bank first");
    }
    String id = nextId();
    double kind = random.nextDouble();
    List<DebeziumTransactions.Event> events = new ArrayList<>();
    if (kind < SPLIT_SHARE) {
      // One account pays 2 or 3 others, of any tables.
      List<long[]> accounts = distinctAccounts(3 + random.nextInt(2));
      long paid = 0;
      List<DebeziumTransactions.Event> credits = new ArrayList<>();
      for (long[] payee : accounts.subList(1, accounts.size())) {
        long amount = 1 + random.nextInt(MAX_AMOUNT);
        paid += amount;
        credits.add(move(payee, amount, id));
      }
      events.add(move(accounts.get(0), -paid, id));
      events.addAll(credits);
    } else {
      int from = random.nextInt(collections.size());
      int to =
          kind < SPLIT_SHARE + SAME_TABLE_SHARE || collections.size() == 1
              ? from
              : (from + 1 + random.nextInt(collections.size() - 1)) % collections.size();
      long[] payer = {from, random.nextInt(accountsPerTable)};
      long[] payee;
      do {
        payee = new long[] {to, random.nextInt(accountsPerTable)};
      } while (payee[0] == payer[0] && payee[1] == payer[1]);
      long amount = 1 + random.nextInt(MAX_AMOUNT);
      events.add(move(payer, -amount, id));
      events.add(move(payee, amount, id));
    }
    return record(id, events);
  }

  /** The transactions so far, in source commit order. */
  public List<Transaction> transactions() {
    return Collections.unmodifiableList(transactions);
  }

  /** The sum of all balances after the opening (and after every transfer). */
  public long openingTotal() {
    return openingTotal;
  }

  public List<String> collections() {
    return collections;
  }

  /** Each table (data collection) as of the end of the first {@code count} transactions. */
  public Map<String, Map<Long, Map<String, Object>>> replay(int count) {
    Map<String, Map<Long, Map<String, Object>>> tables = new LinkedHashMap<>();
    collections.forEach(c -> tables.put(c, new HashMap<>()));
    for (Transaction tx : transactions.subList(0, count)) {
      for (DebeziumTransactions.Event e : tx.events()) {
        tables.get(e.dataCollection()).put(e.id(), e.after());
      }
    }
    return tables;
  }

  /** Each table now. */
  public Map<String, Map<Long, Map<String, Object>>> state() {
    return replay(transactions.size());
  }

  private List<long[]> distinctAccounts(int n) {
    List<long[]> picked = new ArrayList<>();
    while (picked.size() < n) {
      long[] a = {random.nextInt(collections.size()), random.nextInt(accountsPerTable)};
      if (picked.stream().noneMatch(p -> p[0] == a[0] && p[1] == a[1])) {
        picked.add(a);
      }
    }
    return picked;
  }

  /** An update of account {@code index[1]} of table {@code index[0]} by {@code amount}. */
  private DebeziumTransactions.Event move(long[] index, long amount, String id) {
    String collection = collections.get((int) index[0]);
    long account = accountId(collection, (int) index[1]);
    long balance = (Long) state.get(collection).get(account).get("balance");
    return change(collection, account, balance + amount, id);
  }

  private DebeziumTransactions.Event change(
      String collection, long account, long balance, String id) {
    Map<String, Object> after = new LinkedHashMap<>();
    after.put("id", account);
    after.put("owner", "owner-" + account);
    after.put("balance", balance);
    after.put("last_tx", id);
    Map<String, Object> row = Collections.unmodifiableMap(after);
    Map<String, Object> before = state.get(collection).put(account, row);
    return new DebeziumTransactions.Event(collection, account, before, row);
  }

  private Transaction record(String id, List<DebeziumTransactions.Event> events) {
    Transaction tx = new Transaction(id, txId, lsn, 1_767_225_600_000L + txId, List.copyOf(events));
    transactions.add(tx);
    lsn += events.size() + 2L;
    txId++;
    return tx;
  }

  /** PostgreSQL's transaction id as Debezium writes it: {@code txId:lsn}. */
  private String nextId() {
    return txId + ":" + lsn;
  }

  private long accountId(String collection, int index) {
    return (collections.indexOf(collection) + 1L) * 100_000 + index;
  }
}
