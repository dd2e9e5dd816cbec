package io.streamhouse.connect.protocol;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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

  /**
   * The most bytes of transaction ids one control event lists (released, or held): with the rest of
   * the event it stays under the control topic's message size.
   */
  public static final int MAX_IDS_BYTES = 512 * 1024;

  /** The first of {@code ids} that fit in {@link #MAX_IDS_BYTES}, at most {@code max}. */
  public static List<String> fitting(Iterable<String> ids, int max) {
    List<String> fit = new ArrayList<>();
    long bytes = 0;
    for (String id : ids) {
      bytes += 2 + id.length() * 3L; // UTF-8, at most 3 bytes a char
      if (fit.size() >= max || bytes > MAX_IDS_BYTES) {
        break;
      }
      fit.add(id);
    }
    return fit;
  }

  public TransactionCounts {
    seen = Collections.unmodifiableMap(new TreeMap<>(seen));
    ends = Collections.unmodifiableMap(new TreeMap<>(ends));
  }

  public boolean isEmpty() {
    return seen.isEmpty() && ends.isEmpty();
  }
}
