package io.streamhouse.connect.commit.task;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a task's two threads pass each other of source transactions (transaction-consistent CDC), as
 * immutable values: the control thread sets the transactions the latest commit request released
 * ({@link #release}), the task's thread the END events it reads and holds until they are released
 * ({@link #holding}), which the task's answers report.
 */
public final class TransactionExchange {
  private volatile Set<String> released = Set.of();
  private volatile List<String> held = List.of();

  /** Control thread: the commit request of the latest coordinator released {@code ids}. */
  public void release(List<String> ids) {
    Set<String> next = Collections.unmodifiableSet(new LinkedHashSet<>(ids));
    if (!next.equals(released)) {
      released = next;
    }
  }

  /** The transactions whose events may be written; the same object until a request changes it. */
  public Set<String> released() {
    return released;
  }

  /** Task thread: the END events it holds, in their order, at most {@code max}. */
  public void holding(List<String> ids) {
    held = List.copyOf(ids);
  }

  /** What the task's answers report as held. */
  public List<String> held() {
    return held;
  }
}
