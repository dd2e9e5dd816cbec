package io.streamhouse.connect.protocol;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a batch holds of source transactions (transaction-consistent CDC, docs/atomic-commits.md):
 * per transaction id, the events of each topic it holds ({@code seen}; a record written to several
 * tables counts in the batch of the first), and, in a batch of the transactions table, the END
 * events it holds: per transaction id, the events of each topic the END counts ({@code ends}).
 */
public record TransactionCounts(
    Map<String, Map<String, Long>> seen, Map<String, Map<String, Long>> ends) {
  public static final TransactionCounts NONE = new TransactionCounts(Map.of(), Map.of());

  public TransactionCounts {
    seen = Collections.unmodifiableMap(new TreeMap<>(seen));
    ends = Collections.unmodifiableMap(new TreeMap<>(ends));
  }

  public boolean isEmpty() {
    return seen.isEmpty() && ends.isEmpty();
  }
}
