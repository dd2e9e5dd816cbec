package io.streamhouse.connect.commit.coordinator;

import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.TransactionCounts;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transaction-consistent CDC on the coordinator (docs/atomic-commits.md): releases the source
 * transactions whose END events the tasks hold (each commit request names them), and lets a round
 * commit only when its batches hold whole transactions: for every transaction they touch, its END
 * (in the transactions table's batch) and, per topic the connector reads, as many events as the END
 * counts. A round that does not waits, its batches offered again with the next; after {@code
 * timeoutMs} of waiting it commits what arrived, and each transaction left incomplete is logged at
 * ERROR and counted. With the mode off it releases nothing and lets every round commit.
 */
final class TransactionRounds implements RoundGuard {
  private static final Logger LOG = LoggerFactory.getLogger(Coordinator.class);

  /** Transactions committed incomplete that are remembered, so that their late events commit. */
  static final int MAX_FORCED = 100_000;

  private final String connector;
  private final boolean enabled;
  private final long timeoutMs;
  private final int maxPerRound;
  private final Clock clock;
  private final Set<String> topics = new HashSet<>();
  private final Set<String> released = new LinkedHashSet<>();
  private final Set<String> forced = new LinkedHashSet<>();
  private final AtomicLong committedIncomplete = new AtomicLong();
  private long waitingSince = -1;

  /** A transaction a round holds only part of, and what is missing. */
  private record Incomplete(String id, String missing) {
    @Override
    public String toString() {
      return id + ": " + missing;
    }
  }

  TransactionRounds(
      String connector, boolean enabled, long timeoutMs, int maxPerRound, Clock clock) {
    this.connector = connector;
    this.enabled = enabled;
    this.timeoutMs = timeoutMs;
    this.maxPerRound = maxPerRound;
    this.clock = clock;
  }

  /** A task holds the END events of {@code ids}: the next requests release them, in order. */
  void held(List<String> ids) {
    for (String id : ids) {
      if (released.size() >= maxPerRound) {
        return;
      }
      released.add(id);
    }
  }

  /**
   * What the commit requests release: transactions whose END is held or not committed yet, as many
   * as fit in an event.
   */
  List<String> released() {
    return enabled ? TransactionCounts.fitting(released, Integer.MAX_VALUE) : List.of();
  }

  /** The partitions the connector reads in the round about to commit. */
  void reading(Set<TopicPartition> read) {
    topics.clear();
    read.forEach(tp -> topics.add(tp.topic()));
  }

  /**
   * Whether round {@code commitId} may publish {@code tables} as {@code staged}: the batches the
   * tables apply hold whole transactions, or the round waited longer than the timeout (then the
   * transactions left incomplete are logged and counted).
   */
  @Override
  public boolean publishes(
      long commitId, Map<TableId, List<OfferedBatch>> tables, Map<TableId, CommitOutcome> staged) {
    if (!enabled) {
      return true;
    }
    // An END in a batch was released, by this coordinator or by one before it: released on.
    tables.values().forEach(b -> b.forEach(o -> released.addAll(o.transactions().ends().keySet())));
    List<Incomplete> incomplete = incomplete(tables, staged);
    long now = clock.millis();
    if (incomplete.isEmpty()) {
      waitingSince = -1;
      return true;
    }
    if (waitingSince < 0) {
      waitingSince = now;
    }
    if (now - waitingSince < timeoutMs) {
      LOG.info(
          "Commit {} waits for whole source transactions ({} ms so far): {}",
          commitId,
          now - waitingSince,
          summary(incomplete));
      return false;
    }
    LOG.error(
        "Connector {}, commit {}: after {} ms (transactions.timeout.ms) commits {} source"
            + " transactions incomplete, so that the tables go on: {}",
        connector,
        commitId,
        now - waitingSince,
        incomplete.size(),
        summary(incomplete));
    committedIncomplete.addAndGet(incomplete.size());
    for (Incomplete i : incomplete) {
      forced.add(i.id());
      released.remove(i.id());
    }
    for (Iterator<String> it = forced.iterator(); forced.size() > MAX_FORCED; ) {
      it.next();
      it.remove();
    }
    waitingSince = -1;
    return true;
  }

  /**
   * The round committed what {@code results} say: the transactions whose END is now in a table are
   * released no more.
   */
  void committed(Map<TableId, List<OfferedBatch>> toCommit, List<ControlEvent> results) {
    if (!enabled) {
      return;
    }
    for (ControlEvent event : results) {
      if (event instanceof ControlEvent.TableCommitted committed) {
        for (OfferedBatch batch : toCommit.getOrDefault(committed.table(), List.of())) {
          BatchPlan.Decision decision = committed.decisions().get(batch.batchId());
          if (decision == BatchPlan.Decision.APPLY
              || decision == BatchPlan.Decision.ALREADY_PRESENT) {
            released.removeAll(batch.transactions().ends().keySet());
          }
        }
      }
    }
  }

  /** Source transactions committed incomplete after the timeout. */
  long committedIncomplete() {
    return committedIncomplete.get();
  }

  /** The transactions that the batches the tables apply hold part of. */
  private List<Incomplete> incomplete(
      Map<TableId, List<OfferedBatch>> tables, Map<TableId, CommitOutcome> staged) {
    Map<String, Map<String, Long>> seen = new HashMap<>();
    Map<String, Map<String, Long>> ends = new HashMap<>();
    tables.forEach(
        (table, batches) -> {
          CommitOutcome outcome = staged.get(table);
          batches.stream()
              .filter(
                  b ->
                      outcome != null
                          && outcome.decisions().get(b.batchId()) == BatchPlan.Decision.APPLY)
              .map(OfferedBatch::transactions)
              .forEach(
                  t -> {
                    t.seen()
                        .forEach(
                            (id, counts) ->
                                counts.forEach(
                                    (topic, n) ->
                                        seen.computeIfAbsent(id, i -> new HashMap<>())
                                            .merge(topic, n, Long::sum)));
                    ends.putAll(t.ends());
                  });
        });
    Set<String> ids = new TreeSet<>(seen.keySet());
    ids.addAll(ends.keySet());
    List<Incomplete> incomplete = new ArrayList<>();
    for (String id : ids) {
      if (forced.contains(id)) {
        continue;
      }
      Map<String, Long> expected = ends.get(id);
      Map<String, Long> got = seen.getOrDefault(id, Map.of());
      if (expected == null) {
        incomplete.add(new Incomplete(id, "its END is not in the round, " + got + " events are"));
        continue;
      }
      List<String> missing = new ArrayList<>();
      expected.forEach(
          (topic, n) -> {
            long have = got.getOrDefault(topic, 0L);
            if (topics.contains(topic) && have != n) {
              missing.add(have + " of " + n + " events of " + topic);
            }
          });
      got.keySet().stream()
          .filter(topic -> !expected.containsKey(topic))
          .forEach(topic -> missing.add(got.get(topic) + " events of " + topic + ", not in END"));
      if (!missing.isEmpty()) {
        incomplete.add(new Incomplete(id, String.join(", ", missing)));
      }
    }
    return incomplete;
  }

  private static String summary(List<Incomplete> incomplete) {
    return incomplete.size() <= 5
        ? incomplete.toString()
        : incomplete.subList(0, 5) + " and " + (incomplete.size() - 5) + " more";
  }
}
