package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.errors.TableUnavailableException;
import io.streamhouse.connect.protocol.TableId;
import java.util.HashMap;
import java.util.Map;

/**
 * Tables a route names that were missing (auto-create off), so that the records meant for one are
 * refused without asking the catalog for each of them; the catalog is asked again after {@link
 * #RECHECK_NANOS}, so a table created meanwhile is written from then on.
 */
final class MissingTables {
  /** How long a missing table is not looked up again: 10 s. */
  static final long RECHECK_NANOS = 10_000_000_000L;

  /** When the table was found missing, and the message that says so. */
  private record Missing(long at, String message) {}

  private final Map<TableId, Missing> missing = new HashMap<>();

  /**
   * Throws if {@code table} was found missing less than {@link #RECHECK_NANOS} ago.
   *
   * @throws TableUnavailableException with the message of the last lookup
   */
  void check(TableId table) throws TableUnavailableException {
    Missing m = missing.get(table);
    if (m != null && System.nanoTime() - m.at < RECHECK_NANOS) {
      throw new TableUnavailableException(m.message, null);
    }
  }

  /** {@code table} was looked up and is missing. */
  void missing(TableId table, String message) {
    missing.put(table, new Missing(System.nanoTime(), message));
  }

  /** {@code table} was opened. */
  void found(TableId table) {
    missing.remove(table);
  }
}
