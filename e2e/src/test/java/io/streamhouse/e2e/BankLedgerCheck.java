package io.streamhouse.e2e;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The tables of a {@link BankTransfers} source at each Nessie commit against the source: the
 * balances sum to nothing or to the opening total; the ids in the transactions table (rows of
 * {@code END} events; {@code BEGIN} rows, which a sink without the transaction mode writes, are
 * left out) are the first n transactions of the source, each once; and each account table is the
 * source's table after exactly those n transactions. A commit that shows part of a transaction
 * breaks at least one of them.
 */
final class BankLedgerCheck {
  /** What the walk found: commits read, one line per commit that broke a rule, prefixes seen. */
  record Result(int commits, List<String> violations, Set<Integer> prefixes) {}

  private final NessieTableRows reader;
  private final BankTransfers source;
  private final Map<String, String> tableOf;
  private final String transactionsTable;

  /**
   * {@code tableOf}: each data collection of the source to its table; {@code transactionsTable}:
   * the table of the transaction topic.
   */
  BankLedgerCheck(
      NessieTableRows reader,
      BankTransfers source,
      Map<String, String> tableOf,
      String transactionsTable) {
    this.reader = reader;
    this.source = source;
    this.tableOf = Map.copyOf(tableOf);
    this.transactionsTable = transactionsTable;
  }

  /** Reads the tables at each of {@code hashes} (oldest first) and checks each commit. */
  Result checkEach(List<String> hashes) {
    List<String> order = source.transactions().stream().map(t -> t.id()).toList();
    List<String> tables = new ArrayList<>(tableOf.values());
    tables.add(transactionsTable);
    List<String> violations = new ArrayList<>();
    Set<Integer> prefixes = new TreeSet<>();
    for (int i = 0; i < hashes.size(); i++) {
      String hash = hashes.get(i);
      String broken = violation(reader.rowsAt(hash, tables), order, prefixes);
      if (broken != null) {
        violations.add(
            String.format("Nessie commit %d of %d (%s): %s", i + 1, hashes.size(), hash, broken));
      }
    }
    return new Result(hashes.size(), violations, prefixes);
  }

  /** The first rule the tables at one commit break, null if none. */
  private String violation(
      Map<String, List<Map<String, Object>>> rows, List<String> order, Set<Integer> prefixes) {
    long sum = 0;
    Map<String, Integer> counts = new HashMap<>();
    for (String table : tableOf.values()) {
      counts.put(table, rows.get(table).size());
      for (Map<String, Object> row : rows.get(table)) {
        sum += (Long) row.get("balance");
      }
    }
    if (sum != 0 && sum != source.openingTotal()) {
      return String.format(
          "the balances sum to %d, neither 0 nor the opening total %d (rows: %s)",
          sum, source.openingTotal(), counts);
    }
    List<String> ends =
        rows.get(transactionsTable).stream()
            .filter(r -> !"BEGIN".equals(r.get("status")))
            .map(r -> (String) r.get("id"))
            .toList();
    Set<String> visible = new HashSet<>(ends);
    if (visible.size() != ends.size()) {
      return String.format(
          "%d END rows in %s for %d transactions", ends.size(), transactionsTable, visible.size());
    }
    int n = visible.size();
    if (n > order.size() || !visible.equals(new HashSet<>(order.subList(0, n)))) {
      String gap =
          order.subList(0, Math.min(n, order.size())).stream()
              .filter(id -> !visible.contains(id))
              .findFirst()
              .orElse("none");
      return String.format(
          "the %d transactions in %s are not the first %d of the source (first missing: %s, #%d)",
          n, transactionsTable, n, gap, order.indexOf(gap) + 1);
    }
    prefixes.add(n);
    Map<String, Map<Long, Map<String, Object>>> expected = source.replay(n);
    for (Map.Entry<String, String> t : tableOf.entrySet()) {
      String diff = diff(expected.get(t.getKey()), rows.get(t.getValue()));
      if (diff != null) {
        return String.format(
            "%s is not the source after its first %d transactions (the last: %s): %s",
            t.getValue(), n, n == 0 ? "none" : order.get(n - 1), diff);
      }
    }
    return null;
  }

  /** How the rows of a keyed table differ from the source's table, null if they do not. */
  static String diff(Map<Long, Map<String, Object>> model, List<Map<String, Object>> rows) {
    Map<Long, Map<String, Object>> byId = new HashMap<>();
    for (Map<String, Object> row : rows) {
      if (byId.put((Long) row.get("id"), row) != null) {
        return "two rows of id " + row.get("id");
      }
    }
    Set<Long> ids = new TreeSet<>(model.keySet());
    ids.addAll(byId.keySet());
    List<Long> differ =
        ids.stream().filter(id -> !Objects.equals(model.get(id), byId.get(id))).toList();
    if (differ.isEmpty()) {
      return null;
    }
    Long first = differ.get(0);
    return String.format(
        "%d of %d rows differ, e.g. id %d: table %s, source %s",
        differ.size(), ids.size(), first, byId.get(first), model.get(first));
  }
}
